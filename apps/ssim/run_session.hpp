#pragma once
// ssim run's side of a run: the live display, and what is printed at the end
// (session::run does the run).
#include <optional>
#include <string>
#include <vector>

#include "lib/session/load.hpp"

namespace ssim::app {

struct RunRequest {
  bool detach = false;
  bool resume = false;
  bool overwrite = false;
  bool json = false;
  bool in_batch = false;  // inside the job of `ssim run --batch`
  std::string file;
  bool events = false;  // every event as one JSON line on stdout (NDJSON), instead of the table
  std::optional<std::vector<std::string>> only;  // --only: the others are held until ssim start
  bool open = false;                             // --open: the run stays for ssim start until ssim stop
};

// Generates, runs and tracks the experiment; returns the exit code.
int run_experiment(const session::Loaded& loaded, const RunRequest& request);

}  // namespace ssim::app
