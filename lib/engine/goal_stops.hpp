#pragma once
// stop_on_goal (docs/metrics.md): a running entity whose goal says so is stopped once
// its metrics reach the goal, and then counts as completed, with when it got there.
#include <chrono>
#include <set>
#include <string>

#include "lib/engine/run_context.hpp"
#include "lib/util/every.hpp"

namespace ssim::engine {

class GoalStops {
 public:
  // About once a second (metrics are written about every second): the running entities
  // that reached their goal get it recorded and are stopped.
  void check(RunContext& run);
  // `r` ended: stopped on its goal, it is completed whatever the signal. Others untouched.
  void settle(state::EntityRecord& r);

 private:
  Every checks_{std::chrono::seconds(1)};
  std::set<std::string> stopping_;
};

}  // namespace ssim::engine
