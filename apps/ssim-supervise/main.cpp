// ssim-supervise: runs entities' programs and records how each one ended.
//
//   ssim-supervise RUN_DIR NAME [RUN_DIR NAME ...]
//
// For each job it reads RUN_DIR/.ssim-job (argv and environment, written by ssim),
// starts the program in RUN_DIR as the leader of its own session and process group
// (so `ssim stop` kills the whole group and a terminal hang-up does not reach it), with
// stdout and stderr to RUN_DIR/NAME.out and .err, and writes RUN_DIR/.ssim-status.json
// (in place; see common.cpp for why and where that is safe) when
// the program has started, with its pid and start time, and again when it has ended
// (exit code or signal, end time). ssim reads those files to know each entity's state,
// even when `ssim run` itself is gone.
//
// One supervisor may take several jobs started in the same engine tick: process
// creation (exec) is the dominant cost of a large ensemble here (about 2 ms each), and
// an exec'd supervisor per job would double it. It forks a small process per job
// instead (this program is small and linked statically, so a fork is cheap), which is a
// child subreaper: whatever that job detaches (double fork + setsid, with or without its
// environment) is re-parented to it, recorded in RUN_DIR/.ssim-detached, and ended
// when ssim asks (at the end of the run, or `ssim stop` of that entity).
//
// Other modes: --local-agent (this supervisor for a whole run, fed jobs by ssim,
// local_agent.hpp), --agent (the per-node agent inside an allocation, agent.hpp), and those
// inside a scheduler's job or step (step_modes.hpp, colocated_db.hpp).
#include "apps/ssim-supervise/agent.hpp"
#include "apps/ssim-supervise/colocated_db.hpp"
#include "apps/ssim-supervise/common.hpp"
#include "apps/ssim-supervise/keeper.hpp"
#include "apps/ssim-supervise/local_agent.hpp"
#include "apps/ssim-supervise/rank.hpp"
#include "apps/ssim-supervise/step_modes.hpp"
#include "launchers/job_environment.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace supervise;

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--record-step") == 0) return record_step_and_wait(argc, argv);
  if (argc > 1 && std::strcmp(argv[1], "--rank") == 0) return rank_main(argc, argv);
  if (argc > 1 && std::strcmp(argv[1], "--wrap") == 0) return wrap_and_wait(argc, argv);
  if (argc > 1 && std::strcmp(argv[1], "--colocated-db") == 0) return colocated_db_main(argc, argv);
  if (argc > 1 && std::strcmp(argv[1], "--agent") == 0) return agent_main(argc, argv);
  if (argc == 2 && std::strcmp(argv[1], "--local-agent") == 0) return local_agent_main();
  if (argc < 3 || argc % 2 != 1) {
    std::fprintf(stderr, "usage: ssim-supervise RUN_DIR NAME [RUN_DIR NAME ...]\n");
    return 2;
  }
  // Out of ssim's session: a terminal hang-up or Ctrl-C does not reach us. Inside a job
  // whose scheduler ends it by signalling its session, only out of its process group:
  // what ssim started must end with the job.
  if (ssim::launchers::job_ends_with_its_session([](const char* n) { return std::getenv(n); }))
    setpgid(0, 0);
  else
    setsid();
  take_wake_fd();
  sigset_t waited;
  sigemptyset(&waited);
  for (int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT}) sigaddset(&waited, sig);
  sigprocmask(SIG_SETMASK, &waited, nullptr);  // taken with sigtimedwait; programs start with none blocked

  // A fork per job (cheap: this program is small and static) gives every job its own
  // subreaper. This process is not one: if a job's process is killed, the job's program
  // goes to ssim run, which can still take its exit status.
  std::vector<pid_t> keepers;
  for (int i = 1; i + 1 < argc; i += 2) {
    const pid_t pid = fork();
    if (pid == 0) return keep_job(argv[i], argv[i + 1], waited);
    if (pid > 0) {
      keepers.push_back(pid);
      continue;
    }
    fail_to_keep(argv[i], argv[i + 1], std::string("ssim: cannot fork a supervisor: ") + std::strerror(errno));
  }
  int code = 0;
  while (!keepers.empty()) {
    int status = 0;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
      keepers.erase(std::remove(keepers.begin(), keepers.end(), pid), keepers.end());
      if (WIFEXITED(status) && WEXITSTATUS(status) == kExitUnsaved) code = kExitUnsaved;  // passed on to ssim
    }
    if (keepers.empty()) break;
    siginfo_t info{};
    const timespec tick{1, 0};
    const int sig = sigtimedwait(&waited, &info, &tick);
    if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT)
      for (pid_t k : keepers) kill(k, sig);
  }
  return code;
}
