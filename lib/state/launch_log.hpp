#pragma once
// <experiment>/.ssim/launches.ndjson: every job ssim handed to a keeper, as it ran. A job's
// command and environment travel with it (agent_files.hpp); this log is the record of
// them, one file per experiment instead of a file in every run directory. One JSON object
// a line, appended:
//   {"base": KEY, "env": ["K=V", ...]}       the launching ssim's own environment, once
//                                            per process (KEY: its pid and start)
//   {"run_dir", "argv", "env": [[K, V], ...], "base": KEY, "time_limit"?, "job"?}
//                                            a job: what it adds to that environment;
//                                            "run_dir" first, as status_json_string
//                                            spells it, so a reader finds it unparsed;
//                                            "job": the id it has when that is known
//                                            before it is handed over (a node agent's)
// A job's line's byte offset is its launch's id: its keeper's record names it
// (lib/state/keeper_journal.hpp).
// Mode 0600: the additions may hold the database's password.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/state/job_file.hpp"

namespace ssim::state {

std::string launch_log_path(const std::string& experiment_path);

struct LaunchEntry {
  std::string run_dir;
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> additions;
  long time_limit = 0;
  std::string job;  // its job id, when known before the handoff; empty otherwise
};

// Appends `jobs` (and, the first time this process writes to `log`, `base`) in one write,
// through a descriptor the process keeps open; each job's launch id, in order.
// Throws std::runtime_error when the log cannot be written.
std::vector<long> append_launches(const std::string& log, const std::vector<std::string>& base,
                                  const std::vector<LaunchEntry>& jobs);

// This process's environment ("K=V" each): the base a launch's additions go on top of.
std::vector<std::string> this_environment();

// The job id the launch at byte `launch` of the log was to have ("job"); empty when it
// named none (its launcher learns the id from the handoff) or the line cannot be read.
// What a reader asks of a launch whose id ssim never wrote down (killed in between).
std::string launched_job_id(const std::string& log, long launch);

// The last job the log records for `run_dir`, its environment whole; nullopt when none.
std::optional<JobFile> find_launch(const std::string& log, const std::string& run_dir);

}  // namespace ssim::state
