#pragma once
// The Slurm launcher. Inside an allocation every step is an srun with explicit
// --nodelist from the placement plan; srun itself runs under ssim-supervise on this
// host (so its exit code is on disk like a local job's), and inside the step
// `ssim-supervise --record-step` writes the step's own JOB.STEP id to the run directory.
// Status is one `sacct` for every known id per poll, combined with srun's exit code.
#include <functional>
#include <memory>
#include <optional>

#include "launchers/command_runner.hpp"
#include "launchers/launcher.hpp"
#include "launchers/local/local_launcher.hpp"
#include "launchers/slurm/placement.hpp"

namespace ssim::launchers::slurm {

struct Allocation {
  std::string job_id;
  std::vector<std::string> hosts;
};

class SlurmLauncher : public Launcher {
 public:
  using Log = std::function<void(const std::string&)>;
  explicit SlurmLauncher(std::unique_ptr<CommandRunner> runner, Log log = {});

  // Places the plan on the allocation; throws PlacementError when it does not fit.
  void set_allocation(const plan::Plan& plan, Allocation allocation);
  const Allocation& allocation() const { return allocation_; }
  const PlacementPlan& placement() const { return placement_; }

  std::string name() const override { return "slurm"; }
  std::vector<std::string> command(const plan::Step& step) const override;
  std::vector<std::string> database_command(int shard, const std::string& run_dir,
                                            const std::vector<std::string>& inner) const override;
  std::string batch_script(const plan::Step& step) const override;
  std::vector<JobRef> start(std::span<const LaunchRequest> requests) override;
  std::vector<JobStatus> poll(std::span<const JobRef> jobs) override;
  void cancel(std::span<const JobRef> jobs, bool force) override;

  // Scheduler commands issued by poll() so far (the benchmark checks: one per poll).
  int scheduler_queries() const override { return queries_; }
  void set_log(Log log) override { log_ = std::move(log); }

 private:
  std::vector<std::string> wrapped(const std::string& run_dir, const std::vector<std::string>& program) const;
  std::string script_for(const LaunchRequest& r, const spec::BatchSettings& settings) const;
  JobRef submit(const LaunchRequest& r);

  std::unique_ptr<CommandRunner> runner_;
  Log log_;
  LocalLauncher local_;
  Allocation allocation_;
  PlacementPlan placement_;
  std::map<std::string, plan::Resources> resources_;
  std::vector<std::string> setup_;  // experiment.setup, for batch scripts
  plan::Resources database_res_;
  bool database_batched_ = false;
  int queries_ = 0;
  bool accounting_off_ = false;  // sacct says accounting is disabled: squeue instead
};

// The recorded JOB.STEP id of the step running in `run_dir`, or "".
std::string recorded_step(const std::string& run_dir);

// salloc --no-shell for `allocation:` -> the new allocation, or throws EnvironmentError.
Allocation request_allocation(CommandRunner& runner, const std::string& name, const spec::BatchSettings& settings,
                              int nodes);
// The allocation ssim runs inside (SLURM_JOB_ID, SLURM_JOB_NODELIST), if any.
std::optional<Allocation> current_allocation();
// scancel of a whole job (allocations ssim made).
void release_allocation(CommandRunner& runner, const std::string& job_id);

}  // namespace ssim::launchers::slurm
