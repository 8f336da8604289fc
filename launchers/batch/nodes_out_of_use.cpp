#include "launchers/batch/nodes_out_of_use.hpp"

namespace ssim::launchers {
using namespace std::chrono_literals;

bool NodesOutOfUse::take(const launch::CommandResult& answer) {
  const auto* health = scheduler_.node_health();
  if (!health || answer.exit_code != 0) return false;
  out_of_use_ = health->parse_out_of_use(answer);
  return true;
}

bool NodesOutOfUse::check(const std::vector<launch::PoolNode>& pool) {
  bool took = false;
  if (query_.valid()) {
    if (in_background_ && query_.wait_for(0s) != std::future_status::ready) return false;
    took = take(query_.get());
  }
  const auto* health = scheduler_.node_health();
  const auto now = clock_->steady();
  if (!health || pool.empty() || now < next_query_) return took;
  std::vector<std::string> nodes;
  for (const auto& n : pool) nodes.push_back(n.name);
  const auto command = health->node_state_command(nodes);
  next_query_ = now + kInterval;
  if (!in_background_) return take(runner_.run(command, 20s)) || took;
  query_ = std::async(std::launch::async, [runner = &runner_, command] { return runner->run(command, 20s); });
  return took;
}

}  // namespace ssim::launchers
