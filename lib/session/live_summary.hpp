#pragma once
// `ssim status --summary` while a run holds the experiment: the summary that run wrote
// (lib/state/status_summary.hpp) instead of every record read and refreshed, when it is
// that run's (the lock's pid, host and start ticks) and fresh. A run that died let go of
// the lock, and one that stopped writing grows stale: either way the reader reads the
// experiment whole (current_state.hpp), as it does when no run holds it.
#include <optional>
#include <string>

#include "lib/state/lock.hpp"
#include "lib/state/status_summary.hpp"

namespace ssim::session {

// A run writes its summary every second or two while it counts (a million records take
// tens of milliseconds to count); older than this, it is not trusted.
inline constexpr double kFreshSummarySeconds = 15;

struct LiveSummary {
  state::StatusSummary summary;
  state::LockHolder runner;
  double age = 0;  // seconds since the run wrote it
};

std::optional<LiveSummary> live_summary(const std::string& path, double now);

}  // namespace ssim::session
