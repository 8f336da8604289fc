// ssim run FILE: validate, generate, and (with the engine) run the experiment.
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "apps/ssim/batch_submit.hpp"
#include "apps/ssim/launcher_setup.hpp"
#include "apps/ssim/load.hpp"
#include "apps/ssim/print_plan.hpp"
#include "apps/ssim/verbs.hpp"
#include "launchers/slurm/placement.hpp"
#include "apps/ssim/run_session.hpp"
#include "lib/plan/plan_json.hpp"
#include "lib/util/errors.hpp"

namespace ssim::app {

namespace {
struct RunOptions {
  std::string file;
  bool dry_run = false, detach = false, batch = false, overwrite = false, resume = false, json = false;
  bool in_batch = false;
  std::string launcher;
};
}  // namespace

Action add_run(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "Run an experiment");
  cmd->add_option("FILE", o->file, "experiment YAML file")->required();
  cmd->add_flag("--dry-run", o->dry_run, "print the plan; write and start nothing");
  cmd->add_flag("--detach", o->detach, "return once everything is started");
  cmd->add_flag("--batch", o->batch, "submit the whole experiment as one batch job");
  auto* ow = cmd->add_flag("--overwrite", o->overwrite, "replace an existing experiment directory");
  cmd->add_flag("--resume", o->resume, "rerun failed and cancelled entities in place")->excludes(ow);
  cmd->add_option("--launcher", o->launcher, "override experiment.launcher")
      ->check(CLI::IsMember({"auto", "local", "slurm", "pbs", "lsf"}));
  cmd->add_flag("--json", o->json, "machine-readable output on stdout");
  cmd->add_flag("--in-batch", o->in_batch)->group("");  // the job of ssim run --batch
  return [o] {
    // --batch goes through a scheduler: with launcher auto outside an allocation, Slurm.
    const Loaded l = load(o->file, o->launcher.empty() && o->batch && !std::getenv("SLURM_JOB_ID") ? "" : o->launcher);
    if (o->batch) {
      const bool auto_slurm = l.plan.launcher == "local" && l.spec.launcher == "auto" && o->launcher.empty();
      const Loaded b = auto_slurm ? load(o->file, "slurm") : l;
      if (o->dry_run) {
        if (b.plan.launcher != "slurm") throw UsageError("--batch submits through sbatch: it needs launcher slurm");
        std::cout << "batch script (" << b.plan.path << "/.ssim/batch.sbatch):\n"
                  << experiment_batch_script(b.plan, o->file) << "\ninside the job:\n";
        const int nodes = b.plan.batch && b.plan.batch->nodes ? *b.plan.batch->nodes
                                                              : launchers::slurm::nodes_needed(b.plan);
        print_plan(std::cout, b.plan, *prepare_launcher(b.plan, false, std::max(1, nodes)).launcher);
        return 0;
      }
      return submit_experiment(b, RunRequest{false, false, o->overwrite, o->json, false, o->file});
    }
    if (o->dry_run) {
      const auto rl = prepare_launcher(l.plan, false);
      if (o->json)
        std::cout << plan::plan_to_json(l.plan, [&](const plan::Step& s) { return rl.launcher->command(s); }).dump(2) << "\n";
      else
        print_plan(std::cout, l.plan, *rl.launcher);
      return 0;
    }
    RunRequest req{o->detach, o->resume, o->overwrite, o->json, o->in_batch, o->file};
    return run_experiment(l, req);
  };
}

}  // namespace ssim::app
