#pragma once
// The run's summary for readers in other shells (lib/state/status_summary.hpp): written
// when the engine counts, at most every second, over `.ssim/summary.json` (a new file
// renamed over the old, so a reader never meets half of one). Signed with the run's
// pid, host and start ticks, which a reader checks against the experiment's lock.
// A summary that cannot be written is not an error: readers then read the manifest.
#include <chrono>
#include <string>

#include "lib/state/status_summary.hpp"
#include "lib/util/every.hpp"

namespace ssim::engine {

class SummaryWriter {
 public:
  explicit SummaryWriter(std::string experiment_path);
  // Writes it when a second has passed since the last (`now`: when, as steady time).
  void offer(const state::StatusSummary& s, std::chrono::steady_clock::time_point now);

 private:
  std::string path_;
  state::SummaryFile file_;
  Every every_{std::chrono::seconds(1)};
};

}  // namespace ssim::engine
