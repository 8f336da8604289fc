#include "apps/ssim-supervise/local_agent.hpp"
#include "launchers/job_environment.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "apps/ssim-supervise/keeper.hpp"
#include "apps/ssim-supervise/keeper_pool.hpp"

namespace supervise {

namespace {

struct LocalAgent {
  std::optional<KeeperPool> pool;
  std::string received;  // bytes read from ssim and not yet a whole job
  bool ssim_gone = false;
  bool pipes_closed = false;
  int code = 0;
  sigset_t waited{};
  int signals = -1;
  std::string to_ssim;  // "RUN_DIR\0" of jobs whose outcome is lost, not yet sent
};

// Jobs arrive as job handoffs (lib/state/agent_files.hpp).
void take_jobs(LocalAgent& a) {
  ssim::state::AgentJob job;
  // A keeper holds neither ssim's socket (ssim must see the agent's end as the end) nor
  // the agent's signal descriptor.
  while (ssim::state::take_job_handoff(a.received, job)) a.pool->start(job, {0, a.signals});
}

void read_from_ssim(LocalAgent& a) {
  char buffer[65536];
  const ssize_t n = read(0, buffer, sizeof buffer);
  if (n > 0) {
    a.received.append(buffer, static_cast<size_t>(n));
    take_jobs(a);
  } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    a.ssim_gone = true;  // ended its run, or was killed: the jobs started go on
  }
}

// What ssim has not taken yet of `to_ssim`; dropped once ssim is gone.
void send_to_ssim(LocalAgent& a) {
  while (!a.to_ssim.empty() && !a.ssim_gone) {
    const ssize_t n = send(0, a.to_ssim.data(), a.to_ssim.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      a.to_ssim.erase(0, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) a.to_ssim.clear();
      return;
    }
  }
}

void reap(LocalAgent& a) {
  int status = 0;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    const bool unsaved = WIFEXITED(status) && WEXITSTATUS(status) == kExitUnsaved;
    if (unsaved) a.code = kExitUnsaved;  // passed on to ssim at the end, too
    const auto keeper = a.pool->take_exited(pid);
    // Its job's final status could not be written, and perhaps its first either: ssim,
    // which reads no file for it and sees this agent alive, would wait for ever. Told
    // here, then woken.
    if (keeper && unsaved) {
      a.to_ssim += keeper->run_dir + std::string(1, '\0');
      send_to_ssim(a);
      wake_ssim(keeper->run_dir);
    }
  }
}

}  // namespace

int local_agent_main() {
  // As a supervisor: out of ssim's session (or only its process group inside a job
  // whose scheduler ends it by its session).
  if (ssim::launchers::job_ends_with_its_session([](const char* n) { return std::getenv(n); }))
    setpgid(0, 0);
  else
    setsid();
  take_wake_fd();
  LocalAgent a;
  sigemptyset(&a.waited);
  for (int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT}) sigaddset(&a.waited, sig);
  sigprocmask(SIG_SETMASK, &a.waited, nullptr);  // keepers inherit it: they take them with sigtimedwait
  a.signals = signalfd(-1, &a.waited, SFD_CLOEXEC | SFD_NONBLOCK);
  a.pool.emplace(a.waited);
  if (a.signals < 0 || !a.pool->ready()) {
    std::fprintf(stderr, "ssim-supervise --local-agent: %s\n", std::strerror(errno));
    return 3;
  }
  signal(SIGPIPE, SIG_IGN);  // a keeper gone before its job was handed over: write fails, another is used
  while (!a.ssim_gone || !a.pool->empty()) {
    const short from_ssim = static_cast<short>(POLLIN | (a.to_ssim.empty() ? 0 : POLLOUT));
    pollfd fds[3] = {{a.signals, POLLIN, 0}, {a.ssim_gone ? -1 : 0, from_ssim, 0}, {a.pool->idle_fd(), POLLIN, 0}};
    if (poll(fds, 3, 1000) < 0 && errno != EINTR) break;
    if (fds[1].revents & POLLOUT) send_to_ssim(a);
    if (fds[2].revents) a.pool->read_idle();
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) read_from_ssim(a);
    signalfd_siginfo info{};
    while (read(a.signals, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      const int sig = static_cast<int>(info.ssi_signo);
      if (sig != SIGCHLD) a.pool->signal_all(sig);  // ended from outside: each keeper passes it to its job
    }
    reap(a);
    if (a.ssim_gone && !a.pipes_closed) {  // no job will come
      a.pool->close_pipes();
      a.pipes_closed = true;
    }
  }
  return a.code;
}

}  // namespace supervise
