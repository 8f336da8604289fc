#include "apps/ssim/database_pair.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>

namespace ssim::app {

namespace {

using Clock = std::chrono::steady_clock;

pid_t spawn(const std::vector<std::string>& argv, const sigset_t& original_mask, int log_fd,
            const std::string& password) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::sigprocmask(SIG_SETMASK, &original_mask, nullptr);
  if (log_fd >= 0) {
    ::dup2(log_fd, 1);
    ::dup2(log_fd, 2);
  }
  if (!password.empty()) ::setenv("SSDB_PASSWORD", password.c_str(), 1);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execv(args[0], args.data());
  const std::string line = "ssim: cannot run " + argv[0] + ": " + std::strerror(errno) + "\n";
  (void)!::write(2, line.data(), line.size());
  ::_exit(127);
}

int exit_status(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

std::string how_it_ended(int status) {
  return WIFEXITED(status) ? "exited with " + std::to_string(WEXITSTATUS(status))
                           : std::string("was killed by signal ") + ::strsignal(WTERMSIG(status));
}

void stop_and_reap(pid_t pid) {
  if (pid <= 0) return;
  ::kill(pid, SIGTERM);
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while (::waitpid(pid, nullptr, WNOHANG) == 0) {
    if (Clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
      return;
    }
    ::usleep(10000);
  }
}

}  // namespace

int run_server_beside_service(const std::vector<std::string>& server, const std::vector<std::string>& service,
                              const std::string& service_log, const std::string& password) {
  sigset_t mask, original;
  ::sigemptyset(&mask);
  for (int s : {SIGCHLD, SIGTERM, SIGINT, SIGHUP}) ::sigaddset(&mask, s);
  ::sigprocmask(SIG_BLOCK, &mask, &original);
  const int log_fd = ::open(service_log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  auto log = [&](const std::string& line) {
    const std::string text = "ssim: " + line + "\n";
    if (log_fd >= 0) (void)!::write(log_fd, text.data(), text.size());
  };
  const pid_t server_pid = spawn(server, original, -1, "");
  pid_t service_pid = spawn(service, original, log_fd, password);
  std::chrono::seconds backoff{1};
  Clock::time_point restart_at{};
  bool restart_pending = false;
  bool stopping = false;  // a signal was passed on: the service is not started again
  while (true) {
    timespec wait{1, 0};
    if (restart_pending) {
      const auto left = std::max<Clock::duration>(restart_at - Clock::now(), Clock::duration::zero());
      wait.tv_sec = std::chrono::duration_cast<std::chrono::seconds>(left).count();
      wait.tv_nsec = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count() % 1000000000;
    }
    siginfo_t info;
    const int sig = ::sigtimedwait(&mask, &info, &wait);
    if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP) {
      stopping = true;
      restart_pending = false;
      ::kill(server_pid, sig);
      if (service_pid > 0) ::kill(service_pid, SIGTERM);
    }
    int status = 0;
    for (pid_t pid; (pid = ::waitpid(-1, &status, WNOHANG)) > 0;) {
      if (pid == server_pid) {
        stop_and_reap(service_pid);
        return exit_status(status);
      }
      if (pid == service_pid) {
        service_pid = -1;
        if (stopping) continue;
        log("the inference service " + how_it_ended(status) + "; starting it again in " +
            std::to_string(backoff.count()) + " s");
        restart_at = Clock::now() + backoff;
        restart_pending = true;
        backoff = std::min(backoff * 2, std::chrono::seconds(30));
      }
    }
    if (restart_pending && Clock::now() >= restart_at) {
      restart_pending = false;
      service_pid = spawn(service, original, log_fd, password);
    }
  }
}

}  // namespace ssim::app
