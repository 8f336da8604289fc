#pragma once
// Which nodes of the allocation each step runs on. Database shards first, each on a
// node of its own; then entities that want whole nodes (`exclusive: true`, or
// `nodes:`), in start order, each on nodes of its own; `hosts:` pins a step. What is
// left is the pool: every other step is packed there by CPUs and GPUs when it starts
// (node_pool.hpp), so the plan only checks that each fits. Not a scheduler: it gives
// each step its nodes and says so.
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "launchers/placement/allocation.hpp"
#include "lib/launch/node_pool.hpp"
#include "lib/plan/plan.hpp"

namespace ssim::launchers {
using namespace ssim::launch;

struct Placement {
  std::vector<std::string> nodes;
  bool shared = false;     // may meet another step's tasks: srun --overlap
  bool packed = false;     // given its own CPUs on shared nodes: srun --exact
  int tasks_per_node = 0;  // packed: the most tasks on one of its nodes
};

// A packed step's nodes from its grant.
Placement placement_of(const Grant& grant);

struct PlacementPlan {
  std::vector<Placement> database;         // one per shard
  std::map<std::string, Placement> steps;  // whole-node and pinned steps
  std::vector<PoolNode> pool;              // where the other steps are packed
};

// Thrown when the plan does not fit the allocation; the message names what does not.
struct PlacementError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Steps packed into the pool rather than placed: not their own batch job, not pinned,
// not whole nodes.
bool is_packed(const plan::Step& step);

PlacementPlan place(const plan::Plan& plan, const Allocation& allocation);

// How many nodes the experiment needs: one per database shard, each whole-node step's
// own, and room for the packed steps all at once (at most experiment.max_running of
// them) on nodes of `cpus_per_node` CPUs; when that is 0 (not known), as many as the
// widest packed step spans. For `ssim run --batch` and `allocation:` without nodes.
int nodes_needed(const plan::Plan& plan, int cpus_per_node = 0);

}  // namespace ssim::launchers
