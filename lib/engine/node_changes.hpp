#pragma once
// The node pool as nodes come and go during a run: the nodes a whole-node step held
// join the pool once it ended for good; nodes the scheduler or a silent agent takes out
// of use are retired (what no longer fits anywhere fails, and says why) and placed on
// again once back; when the allocation itself ended, nothing more runs; and an entity
// that ended (or waits to be retried) gives its CPUs and devices back.
#include <set>
#include <string>
#include <vector>

#include "lib/engine/run_context.hpp"
#include "lib/engine/schedule.hpp"
#include "lib/launch/launcher.hpp"

namespace ssim::engine {

class NodeChanges {
 public:
  NodeChanges(Schedule& schedule, const launch::Launcher& launcher) : schedule_(schedule), launcher_(launcher) {}

  // The whole-node steps among `ended` that ended for good give their nodes to the pool
  // (Launcher::nodes_freed_by). Returns true when some joined.
  bool take_freed(RunContext& run, const std::vector<std::string>& ended);
  // Nodes the launcher says are out of use are retired, those it no longer names restored.
  // Returns true when the pool changed.
  bool retire_lost(RunContext& run);
  void release_room(const state::Manifest& m);

 private:
  void end_with_allocation(RunContext& run, const launch::JobAllocation::Ended& ended);

  Schedule& schedule_;
  const launch::Launcher& launcher_;
  std::set<std::string> retired_;   // out of the pool until the launcher stops naming them
  std::set<std::string> freed_by_;  // whole-node steps whose nodes joined the pool
};

}  // namespace ssim::engine
