#pragma once
// Node agents (docs/launchers.md, "Agents"): inside an allocation, a one-task step that
// ssim packed on one node runs through that node's agent, started once for the whole run
// with one launch of the scheduler's, instead of as a scheduler step of its own (one
// srun per member tops out near 30 a second and loads slurmctld). The first launch
// covers the whole pool; a node that joins later, or whose agent was lost and that the
// scheduler took out of use and then gave back, gets a launch of its own.
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "launchers/agent/agent_hub.hpp"
#include "launchers/batch/scheduler.hpp"
#include "launchers/batch/scheduler_allocation.hpp"
#include "launchers/local/local_launcher.hpp"

namespace ssim::launchers {

class NodeAgents {
 public:
  using Log = std::function<void(const std::string&)>;
  // `local` runs the agents' launch commands; `notes`: what they did of note.
  NodeAgents(const Scheduler& scheduler, const SchedulerAllocation& allocation, LocalLauncher& local,
             std::string supervisor, const Log& notes);

  // The experiment's .ssim folder, once this process placed the plan in an allocation.
  void place_in(const std::string& ssim_dir) { ssim_dir_ = ssim_dir; }
  // Whether a step of `res` granted room on `nodes` nodes runs through its node's agent.
  bool runs(const plan::Resources& res, size_t nodes) const;

  std::vector<launch::JobRef> start(std::vector<launch::LaunchRequest> requests);
  // The status of jobs handed to agents (JobId::Kind::Agent), one per job.
  std::vector<launch::JobStatus> poll(std::span<const launch::JobRef> jobs);
  void cancel(std::span<const launch::JobRef> jobs, bool force, const Log& log);
  void beat();  // tells every agent ssim lives
  // Node -> why its agent was lost.
  std::map<std::string, std::string> lost() const;
  // A node whose agent was lost is retired for good, unless the scheduler then took it
  // out of use (`out_of_use`) and gave it back: it gets an agent of its own.
  void revive(const std::map<std::string, std::string>& out_of_use);
  // Lets the agents leave once idle, and ends the launches of those that do not.
  void finish();

 private:
  struct Launch {
    std::unique_ptr<AgentHub> hub;
    std::optional<launch::JobRef> job;  // the launch command that runs them
  };
  void start_on(const std::vector<std::string>& nodes);
  const Launch* launch_of_generation(const std::string& generation) const;
  std::string agents_dir(const launch::JobRef& job) const;
  std::string lost_on(const std::string& node) const;  // "" while its agent is fine
  // How the launch that runs these agents ended, once it has.
  std::optional<launch::JobStatus> ended(const Launch& launch);
  bool ended_since(const std::string& dir, const std::string& node);

  const Scheduler& scheduler_;
  const SchedulerAllocation& allocation_;
  LocalLauncher& local_;
  std::string supervisor_;
  const Log& notes_;
  bool possible_ = false;  // the scheduler has agents, and SSIM_AGENTS is not 0
  std::string ssim_dir_;
  std::vector<Launch> launches_;
  std::map<std::string, size_t> launch_of_node_;  // node -> its current launch
  std::set<std::string> down_after_loss_;         // lost agent, then out of use: a new agent once back
  // Jobs not ended, as last read (by run directory), and when all are read again.
  std::map<std::string, launch::JobStatus> quiet_;
  std::map<std::string, double> ended_at_;  // each node's `ended` file -> its time when last asked
  std::chrono::steady_clock::time_point next_sweep_{};
  bool sweep_next_ = false;
};

}  // namespace ssim::launchers
