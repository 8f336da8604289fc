// BatchLauncher's node agents (docs/launchers.md, "Agents"): inside an allocation, a
// one-task step that ssim packed on one node runs through that node's agent, started
// once for the whole run with one launch of the scheduler's, instead of as a scheduler
// step of its own (one srun per member tops out near 30 a second and loads slurmctld).
#include <algorithm>
#include <cstdlib>
#include <thread>

#include "launchers/batch/batch_launcher.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/errors.hpp"
#include "lib/util/split.hpp"

namespace ssim::launchers {

using state::Status;

bool BatchLauncher::via_agent(const plan::Resources& res, size_t nodes) const {
  if (nodes != 1 || !res.agent || res.ntasks != 1 || !res.launcher_args.empty()) return false;
  if (res.mpi != plan::MpiKind::Auto && res.mpi != plan::MpiKind::None) return false;
  return agents_possible_ && !ssim_dir_.empty();  // and placed in an allocation by this process
}

void BatchLauncher::start_agents(const std::vector<std::string>& nodes) {
  AgentLaunch launch;
  launch.hub = std::make_unique<AgentHub>(ssim_dir_, new_agent_generation(), nodes, local_.wake_write_fd());
  std::vector<std::string> program = {supervisor_, "--agent", launch.hub->dir()};
  if (const auto vars = scheduler_->agent_node_variables(); !vars.empty())
    program.insert(program.end(), {"--node-env", join(vars, ",")});
  if (const auto recipe = scheduler_->step_id_recipe()) program.insert(program.end(), {"--id", recipe->id_template});
  LaunchRequest r;
  r.name = "ssim-agents";
  r.run_dir = launch.hub->dir();
  r.argv = *scheduler_->agent_command(allocation_.id(), nodes, program);
  if (const auto var = scheduler_->node_variable(); !var.empty()) r.env.emplace_back("SSIM_NODE_VARIABLE", var);
  launch.job = local_.start(std::span<const LaunchRequest>(&r, 1)).front();
  if (notes_) notes_("node agents started on " + join_hosts(nodes) + " (" + launch.hub->dir() + ")");
  for (const auto& n : nodes) agent_of_node_[n] = agent_launches_.size();
  agent_launches_.push_back(std::move(launch));
}

const BatchLauncher::AgentLaunch* BatchLauncher::launch_of_generation(const std::string& generation) const {
  for (const auto& l : agent_launches_)
    if (l.hub->generation() == generation) return &l;
  return nullptr;
}

std::string BatchLauncher::agent_lost_on(const std::string& node) const {
  const auto it = agent_of_node_.find(node);
  return it == agent_of_node_.end() ? "" : agent_launches_[it->second].hub->lost(node);
}

// A node whose agent was lost is retired for good, unless the scheduler then took it out
// of use and gave it back (an administrator repaired and resumed it): it gets an agent of
// its own, and the engine places on it again once that agent is not lost.
void BatchLauncher::revive_agents() {
  for (const auto& [node, why] : out_of_use_)
    if (!agent_lost_on(node).empty() && down_after_loss_.insert(node).second && notes_)
      notes_("node " + node + ", whose agent was lost, is " + why + ": it gets a new agent once it is back in service");
  for (auto it = down_after_loss_.begin(); it != down_after_loss_.end();) {
    if (out_of_use_.count(*it)) {
      ++it;
      continue;
    }
    if (notes_) notes_("node " + *it + " is back in service after its agent was lost: starting a new agent there");
    start_agents({*it});
    it = down_after_loss_.erase(it);
  }
}

std::vector<JobRef> BatchLauncher::start_via_agents(std::vector<LaunchRequest> requests) {
  if (agent_launches_.empty()) {
    std::vector<std::string> nodes;
    for (const auto& n : allocation_.placement().pool) nodes.push_back(n.name);
    start_agents(nodes);
  }
  // A node that joined the pool later (a whole-node step there ended) gets its agent now.
  std::vector<std::string> without_agent;
  for (const auto& r : requests)
    if (!agent_of_node_.count(r.nodes.front()) &&
        std::find(without_agent.begin(), without_agent.end(), r.nodes.front()) == without_agent.end())
      without_agent.push_back(r.nodes.front());
  if (!without_agent.empty()) start_agents(without_agent);
  const auto task_env = scheduler_->agent_task_env();
  for (auto& r : requests) r.env.insert(r.env.end(), task_env.begin(), task_env.end());
  const auto specs = prepare_jobs(requests);
  std::map<std::string, std::vector<state::AgentJob>> per_node;
  std::vector<JobRef> refs;
  for (size_t i = 0; i < requests.size(); ++i) {
    const auto& r = requests[i];
    const std::string& node = r.nodes.front();
    const AgentHub& hub = *agent_launches_[agent_of_node_.at(node)].hub;
    per_node[node].push_back({r.run_dir, r.name, specs[i]});
    refs.push_back(JobRef{state::JobId::agent(hub.generation(), node), r.name, r.run_dir});
  }
  try {
    for (const auto& [node, jobs] : per_node) agent_launches_[agent_of_node_.at(node)].hub->send_start(node, jobs);
  } catch (const std::exception& e) {
    throw EnvironmentError(std::string("cannot hand jobs to the node agents: ") + e.what());
  }
  return refs;
}

// How the launch that runs these agents ended, once it has.
std::optional<JobStatus> BatchLauncher::agents_ended(const AgentLaunch& launch) {
  if (!launch.job) return std::nullopt;
  const auto s = local_.poll(std::span<const JobRef>(&*launch.job, 1)).front();
  if (!state::is_terminal(s.status)) return std::nullopt;
  return s;
}

void BatchLauncher::finish() {
  if (agent_launches_.empty()) return;
  for (auto& l : agent_launches_) l.hub->finish();  // they leave once idle: at once, every job having ended
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  const auto all_ended = [&] {
    for (const auto& l : agent_launches_)
      if (!agents_ended(l)) return false;
    return true;
  };
  while (!all_ended() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // bounded by the deadline
  for (const auto& l : agent_launches_)
    if (l.job && !agents_ended(l)) local_.cancel(std::span<const JobRef>(&*l.job, 1), false);
  agent_launches_.clear();
  agent_of_node_.clear();
}

}  // namespace ssim::launchers
