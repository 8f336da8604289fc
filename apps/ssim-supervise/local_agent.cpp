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
#include <map>
#include <string>

#include "apps/ssim-supervise/keeper.hpp"

namespace supervise {

namespace {

// A keeper process and the pipe the agent hands it jobs on. A keeper keeps one job at a
// time; once the job (and what it detached) ended it says so on the agent's idle pipe
// and waits for the next one: a fork and an exit saved per member.
struct Keeper {
  int jobs = -1;  // write end of its job pipe; -1 once closed (it leaves when idle)
  bool busy = true;
  std::string run_dir;  // of the job it keeps, or kept last
};

struct LocalAgent {
  std::map<pid_t, Keeper> keepers;
  std::string received;  // bytes read from ssim and not yet a whole job
  bool ssim_gone = false;
  bool pipes_closed = false;
  int code = 0;
  sigset_t waited{};
  int signals = -1;
  int idle[2] = {-1, -1};  // keepers write "PID\n" when their job ended
  std::string idle_said;   // what was read of it and is not yet a whole line
  std::string to_ssim;     // "RUN_DIR\0" of jobs whose outcome is lost, not yet sent
};

bool write_all(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// "RUN_DIR\0NAME\0" at the front of `buffer`, taken off it; false while incomplete.
bool take_record(std::string& buffer, std::string& run_dir, std::string& name) {
  const size_t end_dir = buffer.find('\0');
  if (end_dir == std::string::npos) return false;
  const size_t end_name = buffer.find('\0', end_dir + 1);
  if (end_name == std::string::npos) return false;
  run_dir = buffer.substr(0, end_dir);
  name = buffer.substr(end_dir + 1, end_name - end_dir - 1);
  buffer.erase(0, end_name + 1);
  return true;
}

// A keeper's life: the job it was forked for, then each job the agent sends, until the
// agent closes its pipe. Idle, it waits with every signal unblocked: an outside SIGTERM
// (which the agent passes on) ends it there and then.
[[noreturn]] void keeper_loop(std::string run_dir, std::string name, int jobs, int idle, const sigset_t& waited) {
  std::string received;
  sigset_t none;
  sigemptyset(&none);
  while (true) {
    const int code = keep_job(run_dir, name, waited);
    if (code != 0) _exit(code);  // kExitUnsaved: the agent passes it on to ssim
    const std::string me = std::to_string(getpid()) + "\n";
    if (!write_all(idle, me)) _exit(0);
    while (!take_record(received, run_dir, name)) {
      while (waitpid(-1, nullptr, WNOHANG) > 0) {
      }
      pollfd fd{jobs, POLLIN, 0};
      if (ppoll(&fd, 1, nullptr, &none) < 0 && errno != EINTR) _exit(0);
      if (!fd.revents) continue;
      char buffer[4096];
      const ssize_t n = read(jobs, buffer, sizeof buffer);
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) _exit(0);  // the agent is done
      if (n > 0) received.append(buffer, static_cast<size_t>(n));
    }
  }
}

void start_job(LocalAgent& a, const std::string& run_dir, const std::string& name) {
  for (auto& [pid, k] : a.keepers) {
    if (k.busy || k.jobs < 0) continue;
    if (write_all(k.jobs, run_dir + std::string(1, '\0') + name + std::string(1, '\0'))) {
      k.busy = true;
      k.run_dir = run_dir;
      return;
    }
    close(k.jobs);  // it is going away: another one, or a new one
    k.jobs = -1;
  }
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    fail_to_keep(run_dir, name, std::string("ssim: the agent cannot make a pipe: ") + std::strerror(errno));
    return;
  }
  const pid_t pid = fork();
  if (pid == 0) {
    // The keeper holds neither ssim's socket (ssim must see the agent's end as the end),
    // nor the agent's signal descriptor, nor any other keeper's job pipe (each keeper
    // must see its own pipe's end).
    const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null >= 0) dup2(null, 0);
    close(a.signals);
    close(a.idle[0]);
    close(pipe_fds[1]);
    for (const auto& [other, k] : a.keepers)
      if (k.jobs >= 0) close(k.jobs);
    keeper_loop(run_dir, name, pipe_fds[0], a.idle[1], a.waited);
  }
  close(pipe_fds[0]);
  if (pid > 0) {
    a.keepers[pid] = Keeper{pipe_fds[1], true, run_dir};
  } else {
    close(pipe_fds[1]);
    fail_to_keep(run_dir, name, std::string("ssim: the agent cannot fork: ") + std::strerror(errno));
  }
}

// Keepers whose job ended: free for the next one.
void read_idle(LocalAgent& a) {
  char buffer[4096];
  const ssize_t n = read(a.idle[0], buffer, sizeof buffer);
  if (n <= 0) return;
  std::string& text = a.idle_said;  // a burst of ends may be cut between two reads
  text.append(buffer, static_cast<size_t>(n));
  size_t at = 0;
  for (size_t nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) {
    const auto it = a.keepers.find(static_cast<pid_t>(std::atol(text.substr(at, nl - at).c_str())));
    if (it != a.keepers.end()) it->second.busy = false;
  }
  text.erase(0, at);
}

// Jobs arrive as "RUN_DIR\0NAME\0": any byte but NUL may be in a path.
void take_jobs(LocalAgent& a) {
  std::string run_dir, name;
  while (take_record(a.received, run_dir, name)) start_job(a, run_dir, name);
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
    if (const auto it = a.keepers.find(pid); it != a.keepers.end()) {
      // Its job's final status could not be written, and perhaps its first either: ssim,
      // which reads no file for it and sees this agent alive, would wait for ever. Told
      // here, then woken.
      if (unsaved) {
        a.to_ssim += it->second.run_dir + std::string(1, '\0');
        send_to_ssim(a);
        wake_ssim(it->second.run_dir);
      }
      if (it->second.jobs >= 0) close(it->second.jobs);
      a.keepers.erase(it);
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
  if (a.signals < 0 || pipe2(a.idle, O_CLOEXEC) != 0) {
    std::fprintf(stderr, "ssim-supervise --local-agent: %s\n", std::strerror(errno));
    return 3;
  }
  signal(SIGPIPE, SIG_IGN);  // a keeper gone before its job was handed over: write fails, another is used
  while (!a.ssim_gone || !a.keepers.empty()) {
    const short from_ssim = static_cast<short>(POLLIN | (a.to_ssim.empty() ? 0 : POLLOUT));
    pollfd fds[3] = {{a.signals, POLLIN, 0}, {a.ssim_gone ? -1 : 0, from_ssim, 0}, {a.idle[0], POLLIN, 0}};
    if (poll(fds, 3, 1000) < 0 && errno != EINTR) break;
    if (fds[1].revents & POLLOUT) send_to_ssim(a);
    if (fds[2].revents) read_idle(a);
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) read_from_ssim(a);
    signalfd_siginfo info{};
    while (read(a.signals, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      const int sig = static_cast<int>(info.ssi_signo);
      if (sig != SIGCHLD)  // ended from outside: each keeper passes it to its job
        for (const auto& [k, keeper] : a.keepers) kill(k, sig);
    }
    reap(a);
    if (a.ssim_gone && !a.pipes_closed) {  // no job will come: idle keepers leave, busy ones after theirs
      for (auto& [k, keeper] : a.keepers) {
        if (keeper.jobs >= 0) close(keeper.jobs), keeper.jobs = -1;
        kill(k, SIGCONT);  // a stopped keeper (SIGSTOP, a terminal's Ctrl-Z) would stay for ever
      }
      a.pipes_closed = true;
    }
  }
  return a.code;
}

}  // namespace supervise
