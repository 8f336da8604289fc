#include "apps/ssim-supervise/local_agent.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include "apps/ssim-supervise/keeper.hpp"

namespace supervise {

namespace {

struct LocalAgent {
  std::set<pid_t> keepers;
  std::string received;  // bytes read from ssim and not yet a whole job
  bool ssim_gone = false;
  int code = 0;
  sigset_t waited{};
  int signals = -1;
};

void start_job(LocalAgent& a, const std::string& run_dir, const std::string& name) {
  const pid_t pid = fork();
  if (pid == 0) {
    // The keeper holds neither ssim's socket (ssim must see the agent's end as the end)
    // nor the agent's signal descriptor.
    const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null >= 0) dup2(null, 0);
    close(a.signals);
    _exit(keep_job(run_dir, name, a.waited));
  }
  if (pid > 0) a.keepers.insert(pid);
  else fail_to_keep(run_dir, name, std::string("ssim: the agent cannot fork: ") + std::strerror(errno));
}

// Jobs arrive as "RUN_DIR\0NAME\0": any byte but NUL may be in a path.
void take_jobs(LocalAgent& a) {
  size_t at = 0;
  while (true) {
    const size_t end_dir = a.received.find('\0', at);
    if (end_dir == std::string::npos) break;
    const size_t end_name = a.received.find('\0', end_dir + 1);
    if (end_name == std::string::npos) break;
    start_job(a, a.received.substr(at, end_dir - at), a.received.substr(end_dir + 1, end_name - end_dir - 1));
    at = end_name + 1;
  }
  a.received.erase(0, at);
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

void reap(LocalAgent& a) {
  int status = 0;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    a.keepers.erase(pid);
    if (WIFEXITED(status) && WEXITSTATUS(status) == kExitUnsaved) a.code = kExitUnsaved;  // passed on to ssim
  }
}

}  // namespace

int local_agent_main() {
  // As a supervisor: out of ssim's session (or only its process group inside a PBS or
  // LSF job, whose daemons end a job by its session).
  if (std::getenv("PBS_JOBID") || std::getenv("LSB_JOBID")) setpgid(0, 0);
  else setsid();
  take_wake_fd();
  LocalAgent a;
  sigemptyset(&a.waited);
  for (int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT}) sigaddset(&a.waited, sig);
  sigprocmask(SIG_SETMASK, &a.waited, nullptr);  // keepers inherit it: they take them with sigtimedwait
  a.signals = signalfd(-1, &a.waited, SFD_CLOEXEC | SFD_NONBLOCK);
  if (a.signals < 0) {
    std::fprintf(stderr, "ssim-supervise --local-agent: signalfd: %s\n", std::strerror(errno));
    return 3;
  }
  while (!a.ssim_gone || !a.keepers.empty()) {
    pollfd fds[2] = {{a.signals, POLLIN, 0}, {a.ssim_gone ? -1 : 0, POLLIN, 0}};
    if (poll(fds, 2, 1000) < 0 && errno != EINTR) break;
    if (fds[1].revents) read_from_ssim(a);
    signalfd_siginfo info{};
    while (read(a.signals, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      const int sig = static_cast<int>(info.ssi_signo);
      if (sig != SIGCHLD)  // ended from outside: each keeper passes it to its job
        for (pid_t k : a.keepers) kill(k, sig);
    }
    reap(a);
  }
  return a.code;
}

}  // namespace supervise
