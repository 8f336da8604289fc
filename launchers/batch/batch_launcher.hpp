#pragma once
// The launcher for every batch scheduler (Slurm, PBS, LSF). It owns what they share:
// finding or requesting the allocation, placing the plan over its hosts, starting steps
// inside it under local supervisors (their launch command from the rank-launch axis,
// ranks/), submitting entities as jobs of their own and the whole experiment as one,
// one status query per poll for every job and step, merging the scheduler's word with
// what the supervisors wrote, cancelling and releasing. What differs per scheduler is a
// pure Scheduler (scheduler.hpp) that builds command lines and reads answers.
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <set>
#include <memory>

#include "launchers/agent/agent_hub.hpp"
#include "lib/util/clock.hpp"
#include "launchers/batch/merge_status.hpp"
#include "launchers/placement/placement.hpp"
#include "launchers/batch/scheduler.hpp"
#include "launchers/batch/scheduler_allocation.hpp"
#include "lib/launch/command_runner.hpp"
#include "lib/launch/launcher.hpp"
#include "launchers/local/local_launcher.hpp"
#include "launchers/member_command.hpp"

namespace ssim::launchers {
using namespace ssim::launch;

class BatchLauncher : public Launcher, public BatchSubmission, public BatchScheduling {
 public:
  using Log = std::function<void(const std::string&)>;
  BatchLauncher(std::unique_ptr<Scheduler> scheduler, std::unique_ptr<CommandRunner> runner,
                std::string supervisor = LocalLauncher::default_supervisor());

  std::string name() const override { return scheduler_->name(); }
  void prepare(const plan::Plan& plan, const PrepareOptions& options) override;
  JobAllocation* allocation() override { return &allocation_; }
  const JobAllocation* allocation() const override { return &allocation_; }

  std::vector<std::string> command(const plan::Step& step) const override;
  std::vector<std::string> command_on(const plan::Step& step, const Grant& grant) const override;
  std::vector<PoolNode> pool(const plan::Plan& plan) const override;
  bool packs(const plan::Step& step) const override;
  std::vector<std::string> database_command(int shard, const std::string& run_dir,
                                            const std::vector<std::string>& inner) const override;
  std::vector<JobRef> start(std::span<const LaunchRequest> requests) override;
  std::vector<JobStatus> poll(std::span<const JobRef> jobs) override;
  void cancel(std::span<const JobRef> jobs, bool force) override;
  std::vector<PoolNode> nodes_freed_by(const std::string& name) const override;
  int wake_fd() const override { return local_.wake_fd(); }
  void take_wake() override { local_.take_wake(); }

  BatchScheduling* scheduling() override { return this; }
  const BatchScheduling* scheduling() const override { return this; }
  void set_log(Log log) override { log_ = std::move(log); }
  void set_notes(Log notes) override { notes_ = std::move(notes); }
  int scheduler_queries() const override { return queries_; }
  std::map<std::string, std::string> lost_nodes() const override;
  void set_queries_in_background(bool background) override { in_background_ = background; }
  void finish() override;

  BatchSubmission* batch() override { return this; }
  const BatchSubmission* batch() const override { return this; }
  std::string batch_script(const plan::Step& step) const override;
  std::string batch_script_path(const plan::Step& step) const override;
  std::string experiment_script(const plan::Plan& plan, const std::vector<std::string>& command) const override;
  std::string experiment_script_path(const plan::Plan& plan) const override;
  std::string submit_experiment(const plan::Plan& plan, const std::vector<std::string>& command) override;
  int experiment_nodes(const plan::Plan& plan) const override;

  // Places the plan on `allocation` (tests and prepare); throws PlacementError.
  void set_allocation(const plan::Plan& plan, Allocation allocation);
  const PlacementPlan& placement() const { return allocation_.placement(); }
  Scheduler& scheduler() { return *scheduler_; }
  // What the query pace and the grace for unlisted jobs read the time from (tests).
  // The clock its query intervals and graces run on (tests move a fake one).
  void set_clock(const ssim::Clock& clock) { clock_ = &clock; }

 private:
  struct StepInfo {
    plan::Resources res;
    Placement placement;             // empty for a job of its own
    std::vector<std::string> setup;  // its setup lines, for a job of its own
  };
  RankLauncher launcher_for(const plan::Resources& res, const Placement& placement) const;
  std::vector<std::string> command_for(const plan::Step& step, const StepInfo& info) const;
  // How a step with `info` in `run_dir` is wrapped (member_command.hpp), but for the rank
  // wrapper. `forward`: the variables ranks on other nodes must get (RankContext::forward).
  MemberWrapping wrapping_for(const StepInfo& info, const std::string& run_dir,
                              std::vector<std::string> forward = {}) const;
  // What the step's tasks recorded of their ends, when its launch command exited 0.
  std::optional<StepWitness> step_witness(const JobRef& job, const JobStatus& launch,
                                          const std::optional<JobStatus>& scheduler) const;
  std::vector<std::string> wrap_in_job(const std::string& run_dir, const std::vector<std::string>& command,
                                       const std::string& time) const;
  BatchJob job_for(const std::string& name, const std::string& run_dir, const spec::BatchSettings& settings,
                   const plan::Resources& res, const plan::Env& env, const std::vector<std::string>& command) const;
  std::string submit_script(const std::string& path, const std::string& script, std::string& error);
  JobRef submit(const LaunchRequest& r);
  const StepInfo* info(const std::string& name) const;
  void index_steps(const plan::Plan& plan);
  std::map<std::string, JobStatus> query_scheduler(const std::vector<std::string>& ids);
  bool absorb(const std::vector<std::string>& ids, const CommandResult& r);
  // Node agents: whether a step of `res` granted room on `nodes` nodes runs through
  // its node's agent, the agents' start (once, on every node of the pool), and theirs.
  bool via_agent(const plan::Resources& res, size_t nodes) const;
  // Node agents (batch_agents.cpp): the first launch covers the whole pool; a node
  // whose agent was lost and that the scheduler took out of use and then back gets a
  // launch of its own.
  struct AgentLaunch {
    std::unique_ptr<AgentHub> hub;
    std::optional<JobRef> job;  // the launch command that runs them
  };
  std::vector<JobRef> start_via_agents(std::vector<LaunchRequest> requests);
  std::optional<JobStatus> agents_ended(const AgentLaunch& launch);
  void start_agents(const std::vector<std::string>& nodes);
  const AgentLaunch* launch_of_generation(const std::string& generation) const;
  std::string agent_lost_on(const std::string& node) const;  // "" while its agent is fine
  void revive_agents();
  // Which nodes of the pool the scheduler took out of use (batch_nodes.cpp).
  void check_nodes();
  void take_node_answer(const CommandResult& answer);

  static constexpr std::chrono::milliseconds kMinQueryInterval{1000};
  static constexpr std::chrono::milliseconds kMaxQueryInterval{10000};
  static constexpr std::chrono::seconds kUnlistedGrace{15};
  static constexpr std::chrono::seconds kNodeQueryInterval{10};

  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<CommandRunner> runner_;
  std::string supervisor_;
  Log log_;
  Log notes_;
  LocalLauncher local_;
  SchedulerAllocation allocation_{*scheduler_, *runner_, log_};
  std::map<std::string, StepInfo> steps_;
  StepInfo database_;
  std::vector<std::string> setup_;  // experiment.setup, for batch scripts
  std::string interface_;           // orchestrator.interface: rank 0's address follows it too
  int queries_ = 0;
  const ssim::Clock* clock_ = &real_clock();
  std::chrono::steady_clock::time_point next_query_{};
  std::chrono::milliseconds query_interval_ = kMinQueryInterval;
  std::map<std::string, JobStatus> last_said_;  // the last answer, reused until the next query
  std::map<std::string, std::chrono::steady_clock::time_point> unlisted_since_;  // jobs it stopped listing
  bool in_background_ = false;
  bool agents_possible_ = false;  // the scheduler has agents, and SSIM_AGENTS is not 0
  // The status query under way, in the background. Declared after runner_: destroyed
  // first, it waits for its thread (std::async), which uses the runner.
  std::future<CommandResult> query_;
  std::vector<std::string> query_ids_;  // what it asks about
  bool ask_again_ = false;              // the last answer switched sources: ask at once
  std::string ssim_dir_;                // the experiment's .ssim folder (after prepare)
  std::vector<AgentLaunch> agent_launches_;
  std::map<std::string, size_t> agent_of_node_;  // node -> its current launch
  std::set<std::string> down_after_loss_;        // lost agent, then out of use: a new agent once back
  std::future<CommandResult> node_query_;        // the node states asked for, in the background
  std::chrono::steady_clock::time_point next_node_query_{};
  std::map<std::string, std::string> out_of_use_;  // node -> why, per the last answer
};

// The recorded scheduler id of the step running in `run_dir` (.ssim-step), or "".
std::string recorded_step(const std::string& run_dir);

}  // namespace ssim::launchers
