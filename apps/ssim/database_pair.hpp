#pragma once
// The database step when the experiment wants inference: the server and the inference
// service beside it, as two children of this process (the step), so that the launcher
// tracks, signals and stops both as the one database step.
#include <string>
#include <vector>

namespace ssim::app {

// Runs `server` and `service` (its output appended to `service_log`, the password in its
// SSDB_PASSWORD), forwards SIGTERM/SIGINT/SIGHUP to both, restarts the service when it
// dies (after 1 s, doubling to 30 s), and when the server ends stops the service and
// returns the server's exit status (128 + signal when killed).
int run_server_beside_service(const std::vector<std::string>& server, const std::vector<std::string>& service,
                              const std::string& service_log, const std::string& password);

}  // namespace ssim::app
