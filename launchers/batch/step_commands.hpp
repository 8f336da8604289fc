#pragma once
// What each step of a plan runs inside an allocation: its resources, its place and its
// setup lines, indexed once, and the command line built from them (member_command.hpp),
// the scheduler deciding the rank launcher and what records a step's tasks.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "launchers/batch/merge_status.hpp"
#include "launchers/batch/scheduler.hpp"
#include "launchers/batch/scheduler_allocation.hpp"
#include "launchers/member_command.hpp"
#include "launchers/placement/placement.hpp"

namespace ssim::launchers {

struct StepInfo {
  plan::Resources res;
  Placement placement;             // empty for a job of its own
  std::vector<std::string> setup;  // its setup lines, for a job of its own
};

class StepCommands {
 public:
  StepCommands(const Scheduler& scheduler, const SchedulerAllocation& allocation, std::string supervisor)
      : scheduler_(scheduler), allocation_(allocation), supervisor_(std::move(supervisor)) {}

  // What each step needs when it starts, after the allocation placed the plan.
  void index(const plan::Plan& plan);
  const StepInfo* info(const std::string& name) const;
  // A step's, or else a database shard's (`orchestrator`, `orchestrator_N`), with its placement.
  StepInfo of(const std::string& name) const;

  // The step's command line, placed as `info` says.
  std::vector<std::string> command(const plan::Step& step, const StepInfo& info) const;
  std::vector<std::string> database_command(int shard, const std::string& run_dir,
                                            const std::vector<std::string>& inner) const;
  // What the launch command of a step started on this host needs in its own environment
  // (Slurm's view of the step, for mpirun).
  plan::Env launch_env(const std::string& name, const std::string& run_dir) const;
  // What the step's tasks recorded of their ends, when its launch command exited 0 (or
  // the scheduler says cancelled what ssim did not stop: a task's SIGKILL).
  std::optional<StepWitness> witness(const launch::JobRef& job, const launch::JobStatus& launch,
                                     const std::optional<launch::JobStatus>& scheduler) const;

 private:
  RankLauncher launcher_for(const plan::Resources& res, const Placement& placement) const;
  // How a step is wrapped (member_command.hpp), but for the rank wrapper. `forward`: the
  // variables ranks on other nodes must get (RankContext::forward).
  MemberWrapping wrapping_for(const StepInfo& info, const std::string& run_dir,
                              std::vector<std::string> forward = {}) const;

  const Scheduler& scheduler_;
  const SchedulerAllocation& allocation_;
  std::string supervisor_;
  std::map<std::string, StepInfo> steps_;
  StepInfo database_;      // the database's, with experiment.setup
  std::string interface_;  // orchestrator.interface: rank 0's address follows it too
};

}  // namespace ssim::launchers
