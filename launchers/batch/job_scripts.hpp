#pragma once
// Jobs of their own: an entity with `batch:` and the whole experiment (ssim run --batch),
// each a script the scheduler renders, written beside what it runs and submitted once.
// Inside the job, ssim's supervisor runs the command and writes its exit status beside
// it (exact even where the scheduler forgets ended jobs).
#include <functional>
#include <string>
#include <vector>

#include "launchers/batch/batch_job.hpp"
#include "launchers/batch/scheduler.hpp"
#include "lib/launch/command_runner.hpp"
#include "lib/launch/launcher.hpp"

namespace ssim::launchers {

class JobScripts : public launch::BatchSubmission {
 public:
  using Log = std::function<void(const std::string&)>;
  // `launcher`: what builds a step's command line; `log`: where scheduler failures go.
  JobScripts(Scheduler& scheduler, launch::CommandRunner& runner, const launch::Launcher& launcher,
             std::string supervisor, const Log& log)
      : scheduler_(scheduler), runner_(runner), launcher_(launcher), supervisor_(std::move(supervisor)), log_(log) {}

  std::string batch_script(const plan::Step& step) const override;
  std::string batch_script_path(const plan::Step& step) const override;
  std::string experiment_script(const plan::Plan& plan, const std::vector<std::string>& command) const override;
  std::string experiment_script_path(const plan::Plan& plan) const override;
  std::string submit_experiment(const plan::Plan& plan, const std::vector<std::string>& command) override;
  int experiment_nodes(const plan::Plan& plan) const override;

  // Submits `r` (which has `batch:`) as a job of its own with `res` and `setup`. A refusal
  // is recorded in its status file and returned as a refused job (never thrown).
  launch::JobRef submit(const launch::LaunchRequest& r, const plan::Resources& res,
                        const std::vector<std::string>& setup);

 private:
  std::vector<std::string> wrap_in_job(const std::string& run_dir, const std::vector<std::string>& command,
                                       const std::string& time) const;
  BatchJob job_for(const std::string& name, const std::string& run_dir, const spec::BatchSettings& settings,
                   const plan::Resources& res, const std::vector<std::string>& setup, const plan::Env& env,
                   const std::vector<std::string>& command) const;
  std::string submit_script(const std::string& path, const std::string& script, std::string& error);

  Scheduler& scheduler_;
  launch::CommandRunner& runner_;
  const launch::Launcher& launcher_;
  std::string supervisor_;
  const Log& log_;
};

// Open MPI refuses root unless told: what every launch as root carries.
void add_root_exports(plan::Env& env);

}  // namespace ssim::launchers
