#pragma once
// The launcher for every batch scheduler (Slurm, PBS, LSF). It composes what they share:
// the allocation (found or requested, the plan placed over its hosts: scheduler_allocation),
// each step's command line (step_commands), steps started inside it under local
// supervisors or through node agents (node_agents), jobs of their own and the whole
// experiment as one (job_scripts, batch_job_watch), one status query per poll for every
// job and step (scheduler_queries) merged with what the supervisors wrote (merge_status),
// and the nodes the scheduler took out of use (nodes_out_of_use). What differs per
// scheduler is a pure Scheduler (scheduler.hpp) that builds command lines and reads answers.
#include <functional>
#include <memory>

#include "launchers/batch/batch_job_watch.hpp"
#include "launchers/batch/job_scripts.hpp"
#include "launchers/batch/node_agents.hpp"
#include "launchers/batch/nodes_out_of_use.hpp"
#include "launchers/batch/scheduler.hpp"
#include "launchers/batch/scheduler_allocation.hpp"
#include "launchers/batch/scheduler_queries.hpp"
#include "launchers/batch/step_commands.hpp"
#include "launchers/local/local_launcher.hpp"
#include "lib/launch/command_runner.hpp"
#include "lib/launch/launcher.hpp"
#include "lib/util/clock.hpp"

namespace ssim::launchers {
using namespace ssim::launch;

class BatchLauncher : public Launcher, public BatchScheduling {
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
  bool packs(const plan::Step& step) const override { return is_packed(step); }
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
  int scheduler_queries() const override { return queries_.count(); }
  std::map<std::string, std::string> lost_nodes() const override;
  void set_queries_in_background(bool background) override;
  void finish() override { agents_.finish(); }

  BatchSubmission* batch() override { return &scripts_; }
  const BatchSubmission* batch() const override { return &scripts_; }

  // Places the plan on `allocation` (tests and prepare); throws PlacementError.
  void set_allocation(const plan::Plan& plan, Allocation allocation);
  Scheduler& scheduler() { return *scheduler_; }
  // The clock its query intervals and graces run on (tests move a fake one).
  void set_clock(const ssim::Clock& clock);

 private:
  // Steps started on this host under supervisors (database shards among them): what their
  // launch commands' supervisors say (`local`) merged with the scheduler's word on `ids`.
  std::vector<JobStatus> merge_steps(std::span<const JobRef> steps, std::vector<JobStatus> local,
                                     const std::vector<std::string>& ids,
                                     const std::map<std::string, JobStatus>& said) const;

  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<CommandRunner> runner_;
  std::string supervisor_;
  Log log_;
  Log notes_;
  LocalLauncher local_;
  SchedulerAllocation allocation_{*scheduler_, *runner_, log_};
  StepCommands commands_{*scheduler_, allocation_, supervisor_};
  JobScripts scripts_{*scheduler_, *runner_, *this, supervisor_, log_};
  BatchJobWatch jobs_{*scheduler_};
  NodeAgents agents_{*scheduler_, allocation_, local_, supervisor_, notes_};
  // Both ask in the background: declared after runner_, destroyed first, each waits for its thread.
  SchedulerQueries queries_{*scheduler_, *runner_, log_};
  NodesOutOfUse out_of_use_{*scheduler_, *runner_};
};

// The recorded scheduler id of the step running in `run_dir` (.ssim-step), or "".
std::string recorded_step(const std::string& run_dir);

}  // namespace ssim::launchers
