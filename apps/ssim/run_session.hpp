#pragma once
// What `ssim run` needs around the engine: the lock, the log, signal handling and
// --detach. Kept apart from the CLI wiring in cmd_run.cpp.
#include <string>

#include "lib/session/load.hpp"

namespace ssim::app {
using namespace ssim::session;

struct RunRequest {
  bool detach = false;
  bool resume = false;
  bool overwrite = false;
  bool json = false;
  bool in_batch = false;  // inside the job of `ssim run --batch`
  std::string file;
  bool events = false;  // every event as one JSON line on stdout (NDJSON), instead of the table
};

// Generates, runs and tracks the experiment; returns the exit code.
int run_experiment(const Loaded& loaded, const RunRequest& request);

}  // namespace ssim::app
