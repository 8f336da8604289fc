#pragma once
// The allocation of a batch launcher (launch::JobAllocation): finds the job ssim runs
// inside, or requests the one `allocation:` asks for, places the plan over its hosts,
// and releases what it requested.
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "launchers/placement/allocation.hpp"
#include "launchers/placement/placement.hpp"
#include "launchers/batch/scheduler.hpp"
#include "lib/launch/command_runner.hpp"
#include "lib/launch/job_allocation.hpp"
#include "lib/launch/launcher.hpp"

namespace ssim::launchers {

class SchedulerAllocation : public launch::JobAllocation {
 public:
  using Log = std::function<void(const std::string&)>;
  // `log` (may be empty) is read at each use: the launcher's log is set after it is made.
  SchedulerAllocation(Scheduler& scheduler, CommandRunner& runner, const Log& log)
      : scheduler_(scheduler), runner_(runner), log_(log) {}

  std::string id() const override { return current_.job_id; }
  bool owned() const override { return owned_; }
  std::string placed_nodes(const std::string& name) const override;
  void release(const std::string& id) override;
  std::optional<Ended> ended() const override;
  std::optional<Ended> ended_job(const std::string& id) const override;

  // Finds or (with options.request) requests the allocation and places `plan` on it:
  // UsageError when the plan does not fit or needs one it cannot have, EnvironmentError
  // when a request is refused (what was granted is released first).
  void prepare(const plan::Plan& plan, const launch::PrepareOptions& options);
  // Places `plan` on `allocation` as it is (tests, and prepare); throws PlacementError.
  void place_on(const plan::Plan& plan, Allocation allocation);

  const Allocation& current() const { return current_; }
  const PlacementPlan& placement() const { return placement_; }

 private:
  Allocation request(const AllocationRequests& requests, const std::vector<std::string>& command);
  // The scheduler's word on job `id`, asked the way it answers; nullopt when it cannot be asked.
  std::optional<std::map<std::string, JobStatus>> ask_about(const std::string& id) const;

  Scheduler& scheduler_;
  CommandRunner& runner_;
  const Log& log_;
  Allocation current_;
  bool owned_ = false;
  PlacementPlan placement_;
  mutable std::optional<Ended> ended_;  // once said, for good
};

// The CPUs of a node of the queue `settings` names, when packed steps of `plan` need
// sizing and the scheduler can say (Slurm: sinfo); 0 otherwise: they then share one node.
int cpus_per_node(Scheduler& scheduler, CommandRunner& runner, const plan::Plan& plan,
                  const spec::BatchSettings& settings, const std::function<void(const std::string&)>& log);

}  // namespace ssim::launchers
