// ssim run FILE: validate, generate, and (with the engine) run the experiment.
#include <cstdlib>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "lib/session/batch_submit.hpp"
#include "launchers/job_environment.hpp"
#include "lib/session/launcher_setup.hpp"
#include "apps/ssim/cli_options.hpp"
#include "lib/session/load.hpp"
#include "apps/ssim/print_plan.hpp"
#include "apps/ssim/verbs.hpp"
#include "launchers/registry.hpp"
#include "apps/ssim/run_session.hpp"
#include "lib/plan/plan_json.hpp"
#include "lib/launch/container_checks.hpp"
#include "lib/launch/container_gpu_check.hpp"
#include "lib/launch/door_check.hpp"
#include "lib/plan/program_checks.hpp"
#include "lib/plan/program_trust.hpp"
#include "lib/util/errors.hpp"

namespace ssim::app {
using namespace ssim::session;

namespace {
struct RunOptions {
  std::string file;
  bool dry_run = false, detach = false, batch = false, overwrite = false, resume = false, json = false;
  bool in_batch = false, events = false, open = false;
  std::vector<std::string> only;
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
  auto* only = cmd->add_option("--only", o->only,
                               "start only these entities or ensembles (comma-separated; \"\" for none: the "
                               "database alone); ssim start the others")
                   ->delimiter(',')
                   ->allow_extra_args(false);
  cmd->add_flag("--open", o->open, "keep the run (and its database) for ssim start until ssim stop");
  cmd->add_option("--launcher", o->launcher, "override experiment.launcher")
      ->check(CLI::IsMember(launch::launcher_names()));
  auto* json = cmd->add_flag("--json", o->json, "machine-readable output on stdout");
  cmd->add_flag("--events", o->events, "every event as it happens, one JSON object per line on stdout")->excludes(json);
  add_max_members_option(*cmd);
  cmd->add_flag("--in-batch", o->in_batch)->group("");  // the job of ssim run --batch
  return [o, only] {
    if (o->batch) {
      const Loaded b = load_for_batch(o->file, o->launcher);
      launch::check_containers(b.spec, b.plan);  // refused now, not when the job starts
      launch::check_smartredis_door(b.spec);
      auto launcher = launch::make_launcher(b.plan.launcher);
      const auto* batch = &batch_submission(*launcher);
      // Whether it fits its job is known now: exit 2 here, not inside after the queue wait.
      const RunLauncher inside = prepare_launcher(b.plan, false, batch->experiment_nodes(b.plan));
      if (o->dry_run) {
        const std::string script = batch->experiment_script(b.plan, in_batch_command(o->file, o->resume));
        std::cout << "batch script (" << batch->experiment_script_path(b.plan) << "):\n"
                  << script << "\ninside the job:\n";
        print_plan(std::cout, b.plan, *inside.launcher);
        return 0;
      }
      const auto job = submit_experiment(b, o->file, o->overwrite, o->resume,
                                         [](const std::string& line) { std::cerr << "ssim: " << line << "\n"; });
      std::cerr << "ssim: submitted " << b.plan.name << " as batch job " << job.job_id << " (" << job.nodes
                << " nodes; script " << job.script_path << ")\n  ssim status " << job.path << "\n";
      if (o->json) std::cout << nlohmann::json{{"job_id", job.job_id}, {"path", job.path}}.dump() << "\n";
      return 0;
    }
    parse_options().database_alone = o->open;
    Loaded l = load_to_run(o->file, o->launcher);
    plan::check_programs(l.spec, l.plan);
    launch::check_containers(l.spec, l.plan);
    launch::check_smartredis_door(l.spec);
    for (const auto& warning : plan::program_warnings(l.spec, l.plan)) std::cerr << warning << "\n";
    for (const auto& warning : launch::container_gpu_warnings(l.spec, l.plan)) std::cerr << warning << "\n";
    choose_auto_port(l);  // exit 2 before anything starts, once, not 127 per member
    // Some schedulers end a batch job when its script does, and then everything the job
    // started (launchers/job_environment.hpp): a detached run would be killed with it.
    const bool in_batch_script = launchers::in_batch_script([](const char* n) { return std::getenv(n); });
    if (o->detach && in_batch_script && !o->dry_run)
      throw UsageError(
          "--detach inside a batch job script: the job ends when its script does, and with it "
          "everything ssim starts; run ssim run without --detach there (ssim status and ssim stop "
          "work from the login node)");
    if (o->dry_run) {
      const auto rl = prepare_launcher(l.plan, false);
      if (o->json)
        std::cout << plan::plan_to_json(l.plan, [&](const plan::Step& s) { return launch::step_argv(*rl.launcher, s); })
                         .dump(2)
                  << "\n";
      else
        print_plan(std::cout, l.plan, *rl.launcher);
      return 0;
    }
    launch::make_mount_points(l.spec, l.plan);  // checked above: places to bind on in directory images
    std::optional<std::vector<std::string>> chosen;
    if (only->count() > 0) {
      chosen.emplace();
      for (const auto& n : o->only)
        if (!n.empty()) chosen->push_back(n);
    }
    const RunRequest req{.detach = o->detach,
                         .resume = o->resume,
                         .overwrite = o->overwrite,
                         .json = o->json,
                         .in_batch = o->in_batch,
                         .file = o->file,
                         .events = o->events,
                         .only = chosen,
                         .open = o->open};
    return run_experiment(l, req);
  };
}

}  // namespace ssim::app
