// The nodes of an allocation that go out of use while ssim runs in it: a node agent that
// went silent (agent_hub), or a node the scheduler drained or marked down. Slurm still
// starts steps of a running job on a drained node, so ssim itself stops placing there.
#include "launchers/batch/batch_launcher.hpp"

namespace ssim::launchers {

using namespace std::chrono_literals;

std::map<std::string, std::string> BatchLauncher::lost_nodes() const {
  std::map<std::string, std::string> out = out_of_use_;
  for (const auto& [node, launch] : agent_of_node_)
    if (auto why = agent_launches_[launch].hub->lost(node); !why.empty()) out[node] = why;  // says more than drained
  return out;
}

// A whole-node step's own nodes (not a pinned one's: those may already be shared).
std::vector<PoolNode> BatchLauncher::nodes_freed_by(const std::string& name) const {
  std::vector<PoolNode> out;
  const auto& placement = allocation_.placement();
  const auto it = placement.steps.find(name);
  if (it == placement.steps.end() || it->second.shared) return out;
  for (const auto& node : it->second.nodes) {
    const auto slots = allocation_.current().slots.find(node);
    out.push_back({node, slots == allocation_.current().slots.end() ? 0 : slots->second, std::nullopt});
  }
  return out;
}

// The scheduler's answer is the whole list of nodes out of use now: one it no longer
// names (resumed by an administrator) is in use again. A failed query changes nothing.
void BatchLauncher::take_node_answer(const CommandResult& answer) {
  const auto* health = scheduler_->node_health();
  if (!health || answer.exit_code != 0) return;
  out_of_use_ = health->parse_out_of_use(answer);
  revive_agents();
}

// Every 10 s while packed steps share the pool: in the background (a hung sinfo never
// holds up launching), in line when status queries are (tests).
void BatchLauncher::check_nodes() {
  if (node_query_.valid()) {
    if (in_background_ && node_query_.wait_for(0s) != std::future_status::ready) return;
    take_node_answer(node_query_.get());
  }
  const auto& pool = allocation_.placement().pool;
  const auto* health = scheduler_->node_health();
  const auto now = clock_->steady();
  if (!health || pool.empty() || now < next_node_query_) return;
  std::vector<std::string> nodes;
  for (const auto& n : pool) nodes.push_back(n.name);
  const auto command = health->node_state_command(nodes);
  next_node_query_ = now + kNodeQueryInterval;
  if (!in_background_) {
    take_node_answer(runner_->run(command, 20s));
    return;
  }
  node_query_ = std::async(std::launch::async, [this, command] { return runner_->run(command, 20s); });
}

}  // namespace ssim::launchers
