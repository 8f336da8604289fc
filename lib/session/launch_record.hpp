#pragma once
// What an entity was started with, for the dashboard's detail: its command line and the
// whole environment it got, read from the experiment's launch log (lib/state/launch_log.hpp),
// with the values of secrets masked (the dashboard is read-only and shared with a browser;
// the log itself stays 0600).
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

// Its last launch; nullopt when the entity has not started (nothing in the log yet).
std::optional<LaunchRecord> launch_record(const std::string& experiment_path, const std::string& run_dir);

}  // namespace ssim::session
