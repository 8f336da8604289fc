#pragma once
// How a kept job ended, as its status record says it (lib/state/status_file.hpp): pure,
// so that what a keeper writes at a job's end is unit-tested without a process.
#include <sys/types.h>

#include <string>

#include "lib/state/status_file.hpp"

namespace supervise {

// What the keeper knows of the job when its program ends.
struct Ending {
  double start = 0;        // when the keeper took it
  pid_t pid = 0;           // the program
  bool timed_out = false;  // run.time ended it
  std::string agent_died;  // why the keeper ended it on its own (its node agent was lost); "" if not
};

// The final record: `me` (who keeps it: pids, node, host), the ending, and the program's
// wait status (exit code, or the signal that ended it), at `end`.
ssim::state::StatusFile end_record(const ssim::state::StatusFile& me, const Ending& ending, int wait_status,
                                   double end);

}  // namespace supervise
