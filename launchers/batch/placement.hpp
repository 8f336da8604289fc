#pragma once
// Which nodes of the allocation each step runs on: database shards first, each on a
// node of its own, then entities in start order, each on nodes of its own unless
// `hosts:` pins it or `exclusive: false` lets it share. Not a scheduler: it gives each
// step its nodes and says so.
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "lib/plan/plan.hpp"

namespace ssim::launchers {

struct Placement {
  std::vector<std::string> nodes;
  bool shared = false;  // shares nodes with another step: srun --overlap
};

struct PlacementPlan {
  std::vector<Placement> database;  // one per shard
  std::map<std::string, Placement> steps;
};

// Thrown when the plan does not fit the allocation; the message names what does not.
struct PlacementError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

PlacementPlan place(const plan::Plan& plan, const std::vector<std::string>& allocation);

// How many nodes the experiment needs when every exclusive step has its own (for
// `ssim run --batch` and `allocation:` without nodes).
int nodes_needed(const plan::Plan& plan);

}  // namespace ssim::launchers
