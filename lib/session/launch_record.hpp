#pragma once
// What an entity was started with, for the dashboard's detail: its command line and the
// whole environment it got, read from its job file (lib/state/job_file.hpp), with the
// values of secrets masked (the dashboard is read-only and shared with a browser; the
// job file itself stays 0600).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/session/secrets.hpp"  // is_secret_variable, shown_value

namespace ssim::session {

struct LaunchRecord {
  std::vector<std::string> argv;
  std::string command;                                   // argv as one shell line, quoted where needed
  std::vector<std::pair<std::string, std::string>> env;  // sorted by name, secrets masked
  int masked = 0;                                        // how many values were
};

// nullopt when the entity has not started (no job file yet) or the file is cut short.
std::optional<LaunchRecord> launch_record(const std::string& run_dir);

}  // namespace ssim::session
