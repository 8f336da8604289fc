// ssim-supervise: runs entities' programs and records how each one ended.
//
//   ssim-supervise --local-agent     fed job handoffs on its standard input (a socket)
//
// Each job comes with its command and environment (lib/state/agent_files.hpp, a job
// handoff). A keeper (keeper.hpp) starts the program in RUN_DIR as the leader of its own
// session and process group (so `ssim stop` kills the whole group and a terminal hang-up
// does not reach it), with stdout and stderr to RUN_DIR/NAME.out and .err, and records
// it in its journal (lib/state/keeper_journal.hpp; handed without one, in
// RUN_DIR/.ssim-status.json) when the program has started, with its pid and start time,
// and again, over the same slot, when it has ended (exit code or signal, end time). ssim
// reads those records to know each entity's state, even when `ssim run` itself is gone.
//
// Keepers are forked (this program is small and linked statically, so a fork is cheap)
// and kept for the next job (keeper_pool.hpp); each is a child subreaper: whatever its
// job detaches (double fork + setsid, with or without its environment) is re-parented
// to it, recorded in RUN_DIR/.ssim-detached, and ended when ssim asks (at the end of the
// run, or `ssim stop` of that entity).
//
// Other modes: --agent (the per-node agent inside an allocation, agent.hpp), and those
// inside a scheduler's job or step (step_modes.hpp, colocated_db.hpp, rank.hpp).
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
  std::fprintf(stderr,
               "usage: ssim-supervise --local-agent | --agent DIR ... | --wrap ... | --rank ... | --colocated-db ... "
               "| --record-step ...\n");
  return 2;
}
