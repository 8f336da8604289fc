#include "lib/session/launch_record.hpp"

#include <algorithm>
#include <cctype>

#include "lib/session/secrets.hpp"
#include "lib/state/launch_log.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/shell_quote.hpp"

namespace ssim::session {

std::optional<LaunchRecord> launch_record(const std::string& experiment_path, const std::string& run_dir) {
  const auto job = state::find_launch(state::launch_log_path(experiment_path), run_dir);
  if (!job) return std::nullopt;
  LaunchRecord r;
  r.argv = job->argv;
  for (const auto& word : r.argv) r.command += (r.command.empty() ? "" : " ") + shell_quote(word);
  for (const auto& kv : job->env) {
    const size_t eq = kv.find('=');
    const std::string name = kv.substr(0, eq), value = eq == std::string::npos ? "" : kv.substr(eq + 1);
    bool masked = false;
    r.env.emplace_back(name, shown_value(name, value, masked));
    r.masked += masked;
  }
  std::sort(r.env.begin(), r.env.end());
  return r;
}

}  // namespace ssim::session
