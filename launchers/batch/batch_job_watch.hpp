#pragma once
// A job of its own (`batch:`) judged from the scheduler's word and the status file its
// supervisor writes inside it. A job the scheduler stops listing is given a grace before
// it is judged (its status file may be on its way, or the scheduler forgets ended jobs),
// and one the scheduler says can never start is failed, recorded and cancelled.
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "launchers/batch/scheduler.hpp"
#include "lib/util/clock.hpp"

namespace ssim::launchers {

class BatchJobWatch {
 public:
  explicit BatchJobWatch(const Scheduler& scheduler) : scheduler_(scheduler) {}

  // The status of job `id` (in `run_dir`) given the scheduler's answer. A job that can
  // never run is added to `never`, for the caller to cancel with the others.
  launch::JobStatus status(const std::string& id, const std::string& run_dir,
                           const std::optional<launch::JobStatus>& scheduler, std::vector<std::string>& never);
  void set_clock(const ssim::Clock& clock) { clock_ = &clock; }

 private:
  static constexpr std::chrono::seconds kUnlistedGrace{15};
  const Scheduler& scheduler_;
  const ssim::Clock* clock_ = &real_clock();
  std::map<std::string, std::chrono::steady_clock::time_point> unlisted_since_;  // jobs it stopped listing
};

}  // namespace ssim::launchers
