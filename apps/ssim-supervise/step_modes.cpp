// The supervisor's modes inside a scheduler's job or step (see main.cpp for the main one).
#include "apps/ssim-supervise/step_modes.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "apps/ssim-supervise/common.hpp"
#include "lib/state/status_file.hpp"
#include "lib/state/step_ends.hpp"

extern char** environ;

namespace supervise {

namespace {

// The signals a scheduler sends a task or a job to end it (or to warn it), which the
// program must get: they are caught here (so this process stays to record the end) and
// passed on. Caught handlers go back to their defaults in the program at exec.
constexpr int kPassedOn[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

// Starts PROGRAM (argv, searched in PATH) with the signals above passed on to it: 0, or
// the error of posix_spawnp.
int start_passing_signals(char** argv, pid_t& pid) {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : kPassedOn) sigaction(sig, &sa, nullptr);
  return posix_spawnp(&pid, argv[0], nullptr, nullptr, argv, environ);
}

// The program's wait status, or -1 when it cannot be waited for.
int wait_passing_signals(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
    if (g_forward) kill(pid, g_forward);
    g_forward = 0;
  }
  return status;
}

}  // namespace

// Inside a scheduler's step: `ssim-supervise --record-step FILE --id TEMPLATE
// --rank-var VAR -- PROGRAM...` writes the step's own id to FILE (from the task whose VAR
// is 0 or unset), runs PROGRAM, appends how it ended to the step's ends file beside FILE
// (lib/state/step_ends.hpp), and ends as PROGRAM did. TEMPLATE names environment
// variables in braces ("{JOB}.{STEP}"); the launcher says which. ssim then asks the
// scheduler about exactly that id, without guessing step ids by name or by waiting, and
// trusts the launch command's exit 0 only when every task recorded a clean end.
std::string expand_braces(const std::string& tmpl, bool& complete) {
  std::string out;
  complete = true;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    const size_t close = tmpl[i] == '{' ? tmpl.find('}', i) : std::string::npos;
    if (close == std::string::npos) {
      out += tmpl[i];
      continue;
    }
    const char* v = std::getenv(tmpl.substr(i + 1, close - i - 1).c_str());
    if (!v || !*v) complete = false;
    out += v ? v : "";
    i = close;
  }
  return out;
}

int record_step_and_wait(int argc, char** argv) {
  if (argc < 9 || std::strcmp(argv[3], "--id") != 0 || std::strcmp(argv[5], "--rank-var") != 0 ||
      std::strcmp(argv[7], "--") != 0) {
    std::fprintf(stderr,
                 "usage: ssim-supervise --record-step FILE --id TEMPLATE --rank-var VAR -- PROGRAM [ARGS...]\n");
    return 2;
  }
  const char* rank = std::getenv(argv[6]);
  bool complete = false;
  const std::string id = expand_braces(argv[4], complete);
  if ((!rank || std::strcmp(rank, "0") == 0) && complete) write_atomically(argv[2], id + "\n");
  const std::string file = argv[2];
  const size_t slash = file.rfind('/');
  const std::string ends = ssim::state::step_ends_path(slash == std::string::npos ? "." : file.substr(0, slash));
  pid_t pid = 0;
  const int rc = start_passing_signals(argv + 8, pid);
  if (rc != 0) {
    std::fprintf(stderr, "ssim: cannot start %s: %s\n", argv[8], std::strerror(rc));
    return 127;
  }
  const int status = wait_passing_signals(pid);
  if (status < 0) return 127;
  const int signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
  const std::string line = ssim::state::encode_step_end(rank ? rank : "0", code, signal);
  const int fd = open(ends.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd >= 0) {
    (void)!write(fd, line.data(), line.size());  // one write: lines of tasks never mix
    close(fd);
  }
  if (signal) {  // ends the way the program did, so the launch command reports the same
    std::signal(signal, SIG_DFL);
    kill(getpid(), signal);
    return 128 + signal;
  }
  return code;
}

// Inside a batch job: `ssim-supervise --wrap STATUS_FILE [--node-variable NAME] [--walltime SECONDS] --
// PROGRAM...` runs PROGRAM in the job's own session (so the scheduler's signals reach it),
// writes STATUS_FILE when it starts and ends, and exits as PROGRAM did (128+n for signal
// n). The exit status is then on disk even where the scheduler forgets finished jobs; a
// program killed once the job's wall time ran out is recorded as that, as the server says.
int wrap_and_wait(int argc, char** argv) {
  long walltime = 0;
  while (argc >= 6 && (std::strcmp(argv[3], "--node-variable") == 0 || std::strcmp(argv[3], "--walltime") == 0)) {
    if (argv[3][2] == 'n')
      setenv("SSIM_NODE_VARIABLE", argv[4], 1);  // the variable holding the scheduler's name for this node
    else
      walltime = std::atol(argv[4]);
    for (int i = 3; i + 2 <= argc; ++i) argv[i] = argv[i + 2];
    argc -= 2;
  }
  if (argc < 5 || std::strcmp(argv[3], "--") != 0) {
    std::fprintf(stderr,
                 "usage: ssim-supervise --wrap STATUS_FILE [--node-variable NAME] [--walltime SECONDS] -- PROGRAM "
                 "[ARGS...]\n");
    return 2;
  }
  const std::string file = argv[2];
  ssim::state::StatusFile st = identity();
  st.start = now();
  auto save = [&] { write_atomically(file, ssim::state::encode_status_file(st)); };
  pid_t pid = 0;
  const int rc = start_passing_signals(argv + 4, pid);
  if (rc != 0) {
    const std::string error = std::string("ssim: cannot start ") + argv[4] + ": " + std::strerror(rc);
    std::fprintf(stderr, "%s\n", error.c_str());
    st.exited = true, st.exit_code = 127, st.error = error;
    save();
    return 127;
  }
  st.pid = pid;
  save();
  const int status = wait_passing_signals(pid);
  if (status < 0) return 127;
  const bool signaled = WIFSIGNALED(status);
  st.exited = true;
  st.end = now();
  if (signaled)
    st.signal = WTERMSIG(status);
  else
    st.exit_code = WEXITSTATUS(status);
  // Ended by a signal (or as a program ends on SIGTERM: 128+15) with the wall time spent:
  // the scheduler's doing. A few seconds' slack: the job started before this program did.
  const bool by_signal = signaled || st.exit_code == 128 + SIGTERM || st.exit_code == 128 + SIGKILL;
  if (walltime > 0 && by_signal && st.end - st.start >= walltime - 5) {
    st.error = "wall time exceeded (" + std::to_string(walltime) + " s): the scheduler ended the job";
  }
  save();
  return signaled ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

}  // namespace supervise
