#include "lib/session/experiment_summary.hpp"

#include <map>

#include "lib/state/lock.hpp"
#include "lib/state/manifest.hpp"

namespace ssim::session {

nlohmann::json experiment_summary(const std::string& path) {
  state::Manifest m;
  try {
    m = state::load_manifest(path);
  } catch (const std::exception&) {
    return {{"name", ""}, {"path", path}, {"outcome", "gone"}, {"counts", nlohmann::json::object()}};
  }
  const auto counts = state::entity_counts(m);
  const bool failed = counts.count(state::Status::Failed) > 0;
  // Ended with entities cancelled or never started (ssim stop, a signal): stopped, not
  // completed, even though the run itself finished.
  int done = 0, all = 0;
  for (const auto& [s, n] : counts) {
    all += n;
    if (s == state::Status::Completed) done += n;
  }
  const bool running = state::RunLock::holder(path).has_value();
  nlohmann::json c = nlohmann::json::object();
  for (const auto& [s, n] : counts) c[to_string(s)] = n;
  return {{"name", m.experiment},
          {"path", path},
          {"outcome", running           ? "running"
                      : m.finished <= 0 ? "stopped"
                      : failed          ? "failed"
                      : done < all      ? "stopped"
                                        : "completed"},
          {"created", m.created},
          {"finished", m.finished},
          {"counts", c},
          {"launcher", m.launcher}};
}

}  // namespace ssim::session
