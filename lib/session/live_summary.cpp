#include "lib/session/live_summary.hpp"

#include <algorithm>

#include "lib/util/atomic_file.hpp"

namespace ssim::session {

std::optional<LiveSummary> live_summary(const std::string& path, double now) {
  const auto runner = state::RunLock::holder(path);
  if (!runner) return std::nullopt;
  const auto text = read_file(state::summary_path(path));
  if (!text) return std::nullopt;
  auto file = state::decode_summary_file(*text);
  if (!file || file->pid != runner->pid || file->host != runner->host || file->ticks != runner->ticks)
    return std::nullopt;
  const double age = now - file->written;
  if (age > kFreshSummarySeconds || age < -kFreshSummarySeconds) return std::nullopt;  // clocks of two hosts
  return LiveSummary{std::move(file->summary), *runner, std::max(0.0, age)};
}

}  // namespace ssim::session
