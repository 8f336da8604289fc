#include "lib/launch/command_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "lib/util/layout.hpp"
#include "lib/util/shell_quote.hpp"

extern char** environ;

namespace ssim::launch {

namespace {

// Output goes to anonymous memory files (reading two pipes in turn could deadlock, and
// nothing is left in a shared /tmp), read back once the command has ended.
int memory_file(const char* name) { return static_cast<int>(::memfd_create(name, MFD_CLOEXEC)); }

std::string read_back(int fd) {
  std::string out;
  if (fd < 0 || ::lseek(fd, 0, SEEK_SET) < 0) return out;
  char buf[65536];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) out.append(buf, static_cast<size_t>(n));
  return out;
}

enum class Waited { Ended, TimedOut, Lost };

// Waits for `pid` to end, up to `timeout` (its status in `status` when it Ended; Lost:
// someone else reaped it).
// A pidfd wakes the wait the moment the process ends; where there is none (old kernels),
// a poll of waitpid every few milliseconds does the same, a little later.
Waited wait_until(pid_t pid, std::chrono::milliseconds timeout, int& status) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  auto delay = std::chrono::milliseconds(1);
  while (true) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) {
      if (pidfd >= 0) ::close(pidfd);
      return r == pid ? Waited::Ended : Waited::Lost;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      if (pidfd >= 0) ::close(pidfd);
      return Waited::TimedOut;
    }
    if (pidfd >= 0) {
      pollfd p{pidfd, POLLIN, 0};
      ::poll(&p, 1, static_cast<int>(left.count()));  // readable when the process ends
    } else {
      std::this_thread::sleep_for(std::min(delay, left));  // no pidfd: waitpid again shortly
      delay = std::min(delay * 2, std::chrono::milliseconds(20));
    }
  }
}

class ProcessRunner : public CommandRunner {
 public:
  CommandResult run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                    const std::string& stdin_path) override {
    CommandResult r;
    const std::string exe = argv.empty() ? "" : find_on_path(argv[0]);
    if (exe.empty()) {
      r.err = (argv.empty() ? std::string("(empty command)") : argv[0]) + ": command not found";
      return r;
    }
    const int out = memory_file("ssim-cmd-out"), err = memory_file("ssim-cmd-err");
    if (out < 0 || err < 0) {
      if (out >= 0) ::close(out);
      if (err >= 0) ::close(err);
      r.err = std::string("cannot run ") + argv[0] + ": " + std::strerror(errno);
      return r;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, stdin_path.empty() ? "/dev/null" : stdin_path.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out, 1);
    posix_spawn_file_actions_adddup2(&actions, err, 2);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigfillset(&defaults);
    posix_spawnattr_setsigmask(&attr, &none);  // ssim blocks SIGINT/SIGTERM for its signalfd
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setpgroup(&attr, 0);  // its own group: a timeout ends all of it
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    const int rc = ::posix_spawn(&pid, exe.c_str(), &actions, &attr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
      r.err = std::string("cannot run ") + argv[0] + ": " + std::strerror(rc);
    } else {
      int status = 0;
      const Waited w = wait_until(pid, timeout, status);
      if (w == Waited::Ended) {
        r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      } else if (w == Waited::Lost) {
        r.err = std::string(argv[0]) + ": its exit status was lost\n";
      } else {
        ::kill(-pid, SIGKILL);  // the command and whatever it started
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        r.timed_out = true;
      }
    }
    r.out = read_back(out);
    r.err += read_back(err);
    ::close(out);
    ::close(err);
    return r;
  }
};

}  // namespace

std::unique_ptr<CommandRunner> make_process_runner() { return std::make_unique<ProcessRunner>(); }

void CommandRunner::pause(std::chrono::milliseconds d) { std::this_thread::sleep_for(d); }

CommandResult run_with_retries(CommandRunner& runner, const std::vector<std::string>& argv,
                               std::chrono::milliseconds timeout, const std::function<void(const std::string&)>& log,
                               int tries) {
  static const std::chrono::milliseconds backoff[] = {std::chrono::milliseconds(200), std::chrono::milliseconds(500),
                                                      std::chrono::milliseconds(1000)};
  CommandResult r;
  for (int i = 0; i < tries; ++i) {
    r = runner.run(argv, timeout);
    if (r.exit_code == 0) return r;
    if (log) {
      std::string why = r.timed_out ? "timed out" : "exit code " + std::to_string(r.exit_code);
      std::string err = r.err.substr(0, 200);
      while (!err.empty() && err.back() == '\n') err.pop_back();
      log(shell_join(argv) + ": " + why + (err.empty() ? "" : ": " + err) + (i + 1 < tries ? "; retrying" : ""));
    }
    if (i + 1 < tries) runner.pause(backoff[std::min(i, 2)]);  // scheduler backoff
  }
  return r;
}

}  // namespace ssim::launch
