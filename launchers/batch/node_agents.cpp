#include "launchers/batch/node_agents.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "launchers/job_files.hpp"
#include "lib/state/job_records.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/errors.hpp"
#include "lib/util/split.hpp"

namespace ssim::launchers {
using namespace ssim::launch;
using state::Status;
using Kind = state::JobId::Kind;

namespace {
std::string describe_end(const JobStatus& s) {
  if (!s.reason.empty()) return s.reason;
  if (s.exit_code) return "exit code " + std::to_string(*s.exit_code);
  return to_string(s.status);
}
}  // namespace

NodeAgents::NodeAgents(const Scheduler& scheduler, const SchedulerAllocation& allocation, LocalLauncher& local,
                       std::string supervisor, const Log& notes)
    : scheduler_(scheduler),
      allocation_(allocation),
      local_(local),
      supervisor_(std::move(supervisor)),
      notes_(notes),
      // Once, not per member: whether this scheduler has agents, and SSIM_AGENTS=0 (a step each).
      possible_(scheduler.agent_command("", {"node"}, {}).has_value() && agents_allowed()) {}

bool NodeAgents::runs(const plan::Resources& res, size_t nodes) const {
  if (nodes != 1 || !res.agent || res.ntasks != 1 || !res.launcher_args.empty()) return false;
  if (res.mpi != plan::MpiKind::Auto && res.mpi != plan::MpiKind::None) return false;
  return possible_ && !ssim_dir_.empty();  // and placed in an allocation by this process
}

void NodeAgents::start_on(const std::vector<std::string>& nodes) {
  Launch launch;
  launch.hub = std::make_unique<AgentHub>(ssim_dir_, new_agent_generation(), nodes, local_.wake_write_fd());
  std::vector<std::string> program = {supervisor_, "--agent", launch.hub->dir()};
  if (const auto vars = scheduler_.agent_node_variables(); !vars.empty())
    program.insert(program.end(), {"--node-env", join(vars, ",")});
  if (const auto recipe = scheduler_.step_id_recipe()) program.insert(program.end(), {"--id", recipe->id_template});
  LaunchRequest r;
  r.name = "ssim-agents";
  r.run_dir = launch.hub->dir();
  r.argv = *scheduler_.agent_command(allocation_.id(), nodes, program);
  if (const auto var = scheduler_.node_variable(); !var.empty()) r.env.emplace_back("SSIM_NODE_VARIABLE", var);
  launch.job = local_.start(std::span<const LaunchRequest>(&r, 1)).front();
  if (notes_) notes_("node agents started on " + join_hosts(nodes) + " (" + launch.hub->dir() + ")");
  for (const auto& n : nodes) launch_of_node_[n] = launches_.size();
  launches_.push_back(std::move(launch));
}

const NodeAgents::Launch* NodeAgents::launch_of_generation(const std::string& generation) const {
  for (const auto& l : launches_)
    if (l.hub->generation() == generation) return &l;
  return nullptr;
}

// The agents' folder of a job handed to them: this run's, or found beside the job (a
// reader that did not start them, or an earlier run's).
std::string NodeAgents::agents_dir(const JobRef& job) const {
  const Launch* mine = launch_of_generation(job.id.job);
  return mine ? mine->hub->dir() : find_agents_dir(job.run_dir, job.id.job);
}

std::string NodeAgents::lost_on(const std::string& node) const {
  const auto it = launch_of_node_.find(node);
  return it == launch_of_node_.end() ? "" : launches_[it->second].hub->lost(node);
}

std::map<std::string, std::string> NodeAgents::lost() const {
  std::map<std::string, std::string> out;
  for (const auto& [node, launch] : launch_of_node_)
    if (auto why = launches_[launch].hub->lost(node); !why.empty()) out[node] = why;
  return out;
}

void NodeAgents::revive(const std::map<std::string, std::string>& out_of_use) {
  for (const auto& [node, why] : out_of_use)
    if (!lost_on(node).empty() && down_after_loss_.insert(node).second && notes_)
      notes_("node " + node + ", whose agent was lost, is " + why + ": it gets a new agent once it is back in service");
  for (auto it = down_after_loss_.begin(); it != down_after_loss_.end();) {
    if (out_of_use.count(*it)) {
      ++it;
      continue;
    }
    if (notes_) notes_("node " + *it + " is back in service after its agent was lost: starting a new agent there");
    start_on({*it});
    it = down_after_loss_.erase(it);
  }
}

std::vector<JobRef> NodeAgents::start(std::vector<LaunchRequest> requests) {
  if (launches_.empty()) {
    std::vector<std::string> nodes;
    for (const auto& n : allocation_.placement().pool) nodes.push_back(n.name);
    start_on(nodes);
  }
  // A node that joined the pool later (a whole-node step there ended) gets its agent now.
  std::vector<std::string> without_agent;
  for (const auto& r : requests)
    if (!launch_of_node_.count(r.nodes.front()) &&
        std::find(without_agent.begin(), without_agent.end(), r.nodes.front()) == without_agent.end())
      without_agent.push_back(r.nodes.front());
  if (!without_agent.empty()) start_on(without_agent);
  const auto task_env = scheduler_.agent_task_env();
  for (auto& r : requests) {
    if (const auto var = scheduler_.node_variable(); !var.empty()) r.env.emplace_back("SSIM_NODE_VARIABLE", var);
    r.env.insert(r.env.end(), task_env.begin(), task_env.end());
  }
  std::vector<JobRef> refs;
  std::vector<std::string> ids;
  for (const auto& r : requests) {
    const std::string& node = r.nodes.front();
    const AgentHub& hub = *launches_[launch_of_node_.at(node)].hub;
    refs.push_back(JobRef{state::JobId::agent(hub.generation(), node), r.name, r.run_dir});
    ids.push_back(refs.back().id.str());
  }
  auto jobs = prepare_jobs(requests, ids);
  std::map<std::string, std::vector<state::AgentJob>> per_node;
  for (size_t i = 0; i < requests.size(); ++i) per_node[requests[i].nodes.front()].push_back(std::move(jobs[i]));
  try {
    for (const auto& [node, jobs] : per_node) launches_[launch_of_node_.at(node)].hub->send_start(node, jobs);
  } catch (const std::exception& e) {
    throw EnvironmentError(std::string("cannot hand jobs to the node agents: ") + e.what());
  }
  return refs;
}

void NodeAgents::beat() {
  for (auto& l : launches_) l.hub->beat();
}

// Whether the node's agent marked an end since this was last asked (its `ended` file's
// time moved; the first ask says yes).
bool NodeAgents::ended_since(const std::string& dir, const std::string& node) {
  struct stat st {};
  const std::string path = state::agent_node_dir(dir, node) + "/ended";
  const double at = ::stat(path.c_str(), &st) == 0 ? st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9 : -1;
  auto [known, first] = ended_at_.try_emplace(path, at);
  if (first) return true;
  const bool moved = known->second != at;
  known->second = at;
  return moved;
}

std::vector<JobStatus> NodeAgents::poll(std::span<const JobRef> jobs) {
  std::map<std::pair<std::string, std::string>, std::string> lost;  // (agents folder, node) -> why lost
  std::map<const Launch*, std::optional<JobStatus>> launch_ended;   // asked once per poll
  std::map<std::pair<std::string, std::string>, bool> moved;        // (agents folder, node) -> an end marked
  std::vector<JobStatus> out;
  // A job not ended is read again when its node's agent marked an end, and every job at a
  // sweep (every 250 ms, and after a stop): a start, a lost agent, an end whose mark
  // shared its time with the last. Else it is as it was, for no read a poll.
  const auto now = std::chrono::steady_clock::now();
  const bool sweep = sweep_next_ || now >= next_sweep_;
  if (sweep) next_sweep_ = now + std::chrono::milliseconds(250), sweep_next_ = false;
  state::refresh_job_records();  // what the keepers recorded since the last poll
  for (const auto& job : jobs) {
    const Launch* mine = launch_of_generation(job.id.job);
    const std::string dir = agents_dir(job);
    const auto seen = quiet_.find(job.run_dir);
    if (!sweep && seen != quiet_.end()) {
      auto [node_moved, first_ask] = moved.try_emplace({dir, job.id.node});
      if (first_ask) node_moved->second = dir.empty() || ended_since(dir, job.id.node);
      if (!node_moved->second) {
        out.push_back(seen->second);
        continue;
      }
    }
    // Whether a node's agent is lost: asked once per node and poll, not per job.
    auto [why, first] = lost.try_emplace({dir, job.id.node});
    if (first && !dir.empty()) why->second = agent_lost(dir, job.id.node);
    JobStatus s = agent_job_status(dir, job.id.node, job.run_dir, why->second);
    if (mine && !state::is_terminal(s.status)) {
      auto [gone, asked] = launch_ended.try_emplace(mine);
      if (asked) gone->second = ended(*mine);
      if (gone->second) {
        const std::string step = s.native_id;
        s = status_from_file(job.run_dir);  // it may have ended just before its agent
        s.native_id = step;
        if (!state::is_terminal(s.status)) {
          s.status = Status::Failed;
          s.reason = "the node agents' launch ended (" + describe_end(*gone->second) + "; see " + mine->hub->dir() +
                     "/ssim-agents.err)";
        }
      }
    }
    if (state::is_terminal(s.status))
      quiet_.erase(job.run_dir);
    else
      quiet_[job.run_dir] = s;
    out.push_back(s);
  }
  return out;
}

void NodeAgents::cancel(std::span<const JobRef> jobs, bool force, const Log& log) {
  sweep_next_ = true;  // what is stopped is read at the next poll
  std::map<std::pair<std::string, std::string>, state::AgentCancel> to_agents;  // (folder, node)
  for (const auto& j : jobs) {
    mark_cancelled(j.run_dir);
    const std::string dir = agents_dir(j);
    if (dir.empty()) continue;
    auto& c = to_agents[{dir, j.id.node}];
    c.force = force;
    c.run_dirs.push_back(j.run_dir);
  }
  for (const auto& [where, c] : to_agents) {
    try {
      send_agent_cancel(where.first, where.second, c);
    } catch (const std::exception& e) {
      if (log) log("cannot ask the agent on " + where.second + " to stop jobs: " + e.what());
    }
  }
}

std::optional<JobStatus> NodeAgents::ended(const Launch& launch) {
  if (!launch.job) return std::nullopt;
  const auto s = local_.poll(std::span<const JobRef>(&*launch.job, 1)).front();
  if (!state::is_terminal(s.status)) return std::nullopt;
  return s;
}

void NodeAgents::finish() {
  if (launches_.empty()) return;
  for (auto& l : launches_) l.hub->finish();  // they leave once idle: at once, every job having ended
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  const auto all_ended = [&] {
    for (const auto& l : launches_)
      if (!ended(l)) return false;
    return true;
  };
  while (!all_ended() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // bounded by the deadline
  for (const auto& l : launches_)
    if (l.job && !ended(l)) local_.cancel(std::span<const JobRef>(&*l.job, 1), false);
  launches_.clear();
  launch_of_node_.clear();
}

}  // namespace ssim::launchers
