#pragma once
// The node pool as nodes come and go during a run: the nodes a whole-node step held
// join the pool once it ended for good; nodes the scheduler or a silent agent takes out
// of use are retired (what no longer fits anywhere fails, and says why) and placed on
// again once back; when the allocation itself ended, nothing more runs; and an entity
// that ended (or waits to be retried) gives its CPUs and devices back.
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lib/engine/run_context.hpp"
#include "lib/engine/schedule.hpp"
#include "lib/launch/launcher.hpp"

namespace ssim::engine {

// What NodeChanges asks of the launcher (node_sources_of gives a launcher's; tests, lambdas).
struct NodeSources {
  // The nodes a whole-node step that ended gives back (Launcher::nodes_freed_by).
  std::function<std::vector<launch::PoolNode>(const std::string&)> freed_by;
  // Nodes out of use now, each with why (BatchScheduling::lost_nodes); unset: none ever (this machine).
  std::function<std::map<std::string, std::string>()> lost;
  // Whether the allocation the run is in ended, and how (JobAllocation::ended); unset: none.
  std::function<std::optional<launch::JobAllocation::Ended>()> allocation_ended;
};
NodeSources node_sources_of(const launch::Launcher& launcher);

class NodeChanges {
 public:
  NodeChanges(Schedule& schedule, NodeSources sources) : schedule_(schedule), sources_(std::move(sources)) {}

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
  NodeSources sources_;
  std::set<std::string> retired_;   // out of the pool until the launcher stops naming them
  std::set<std::string> freed_by_;  // whole-node steps whose nodes joined the pool
};

}  // namespace ssim::engine
