#pragma once
// What a batch script says, whatever the scheduler: the job's request, the setup lines
// and the one command it runs. Each scheduler renders it with its own directives.
#include <string>
#include <utility>
#include <vector>

#include "lib/plan/plan.hpp"

namespace ssim::launchers {

struct BatchJob {
  std::string name;
  spec::BatchSettings settings;  // nodes, time, account, queue, options (verbatim)
  // What the job's step uses (tasks, cpus and gpus per task), asked for as a
  // hand-written script would; nodes come from settings.nodes, else res.nodes.
  plan::Resources res;
  bool whole_nodes = false;          // exclusive nodes (ssim run --batch)
  int node_cpus = 0;                 // CPUs of a node of the queue, when the scheduler said (0: unknown)
  std::vector<std::string> after;    // scheduler ids that must end with exit code 0 first
  std::vector<std::string> setup;    // shell lines, as written (experiment's, then the job's)
  std::string run_dir;               // where the command runs
  std::string out, err;              // the job's output files
  plan::Env env;                     // exported before the setup lines
  std::vector<std::string> command;  // quoted into the script
};

// The nodes a job asks for: settings.nodes, else the step's nodes, else enough for
// its tasks at tasks_per_node, else 1.
int job_nodes(const BatchJob& job);

// plan::time_seconds for a script directive; -1 when no time is given.
long time_seconds(const std::string& time);

// Renders the common tail of every batch script: cd, exports, setup lines, exec.
std::string script_body(const BatchJob& job);

}  // namespace ssim::launchers
