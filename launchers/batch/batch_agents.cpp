// BatchLauncher's node agents (docs/launchers.md, "Agents"): inside an allocation, a
// one-task step that ssim packed on one node runs through that node's agent, started
// once for the whole run with one launch of the scheduler's, instead of as a scheduler
// step of its own (one srun per member tops out near 30 a second and loads slurmctld).
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

void BatchLauncher::start_agents() {
  std::vector<std::string> nodes;
  for (const auto& n : allocation_.placement().pool) nodes.push_back(n.name);
  agents_ = std::make_unique<AgentHub>(ssim_dir_, new_agent_generation(), nodes, local_.wake_write_fd());
  std::vector<std::string> program = {supervisor_, "--agent", agents_->dir()};
  if (const auto vars = scheduler_->agent_node_variables(); !vars.empty())
    program.insert(program.end(), {"--node-env", join(vars, ",")});
  if (const auto recipe = scheduler_->step_id_recipe()) program.insert(program.end(), {"--id", recipe->id_template});
  LaunchRequest r;
  r.name = "ssim-agents";
  r.run_dir = agents_->dir();
  r.argv = *scheduler_->agent_command(allocation_.id(), nodes, program);
  if (const auto var = scheduler_->node_variable(); !var.empty()) r.env.emplace_back("SSIM_NODE_VARIABLE", var);
  agents_job_ = local_.start(std::span<const LaunchRequest>(&r, 1)).front();
  if (notes_) notes_("node agents started on " + join_hosts(nodes) + " (" + agents_->dir() + ")");
}

std::vector<JobRef> BatchLauncher::start_via_agents(std::vector<LaunchRequest> requests) {
  if (!agents_) start_agents();
  const auto task_env = scheduler_->agent_task_env();
  for (auto& r : requests) r.env.insert(r.env.end(), task_env.begin(), task_env.end());
  write_job_files(requests);
  std::map<std::string, std::vector<state::AgentJob>> per_node;
  std::vector<JobRef> refs;
  for (const auto& r : requests) {
    per_node[r.nodes.front()].push_back({r.run_dir, r.name});
    refs.push_back(JobRef{state::JobId::agent(agents_->generation(), r.nodes.front()), r.name, r.run_dir});
  }
  try {
    for (const auto& [node, jobs] : per_node) agents_->send_start(node, jobs);
  } catch (const std::exception& e) {
    throw EnvironmentError(std::string("cannot hand jobs to the node agents: ") + e.what());
  }
  return refs;
}

// How the launch that runs the agents ended, once it has (this process's agents only).
std::optional<JobStatus> BatchLauncher::agents_ended() {
  if (!agents_job_) return std::nullopt;
  const auto s = local_.poll(std::span<const JobRef>(&*agents_job_, 1)).front();
  if (!state::is_terminal(s.status)) return std::nullopt;
  return s;
}

void BatchLauncher::finish() {
  if (!agents_) return;
  agents_->finish();  // they leave once idle: at once, every job having ended
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!agents_ended() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // bounded by the deadline
  if (!agents_ended()) local_.cancel(std::span<const JobRef>(&*agents_job_, 1), false);
  agents_.reset();
}

}  // namespace ssim::launchers
