#include "apps/ssim/batch_submit.hpp"

#include <filesystem>
#include <iostream>

#include "launchers/registry.hpp"
#include "lib/engine/engine.hpp"
#include "lib/generate/generate.hpp"
#include "lib/state/history.hpp"
#include "lib/state/lock.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/errors.hpp"
#include "lib/util/self_exe.hpp"

namespace ssim::app {

namespace fs = std::filesystem;

std::vector<std::string> in_batch_command(const std::string& file) {
  return {self_exe(), "run", fs::absolute(file).string(), "--in-batch"};
}

Loaded load_for_batch(const std::string& file, const std::string& launcher_option) {
  Loaded l = load(file, launcher_option);
  if (l.plan.launcher == "local" && l.spec.launcher == "auto" && launcher_option.empty()) {
    const std::string scheduler = launchers::submit_launcher(launchers::program_on_path);
    if (!scheduler.empty()) return load(file, scheduler);
  }
  return l;
}

int submit_experiment(const Loaded& l, const RunRequest& req) {
  const plan::Plan& plan = l.plan;
  auto launcher = launchers::make_launcher(plan.launcher);
  if (!launcher->is_scheduler())
    throw UsageError("--batch submits the experiment to a batch scheduler; this experiment resolves to launcher " +
                     plan.launcher + " (choose a scheduler with launcher: or --launcher)");
  state::refuse_if_running(plan.path);
  const auto generated = generate::generate(plan, req.overwrite ? generate::Existing::Overwrite
                                                                : generate::Existing::Refuse);
  for (const auto& w : generated.warnings) std::cerr << "ssim: warning: " << w << "\n";

  // Held until the job is recorded: a scheduler may start the job at once, and its
  // `ssim run --in-batch` waits for this lock to read the manifest written below.
  auto lock = state::RunLock::try_acquire(plan.path, "submit");
  if (!lock) state::refuse_if_running(plan.path);
  const std::string id = launcher->submit_experiment(plan, in_batch_command(req.file));
  state::Manifest m = engine::new_manifest(plan, state::new_experiment_id());
  m.created = now_seconds();
  state::EntityRecord batch;
  batch.name = "batch";
  batch.type = "batch";
  batch.run_dir = plan.path + "/.ssim";
  batch.launcher = plan.launcher;
  batch.job_id = "job:" + id;
  batch.native_id = id;
  batch.status = state::Status::Pending;
  batch.start = now_seconds();
  batch.attempt = 1;
  m.entities.insert(m.entities.begin(), batch);
  state::save_manifest(m);
  state::record_run(fs::current_path().string(), plan.file, plan.path);
  std::cerr << "ssim: submitted " << plan.name << " as batch job " << id << " (" << launcher->experiment_nodes(plan)
            << " nodes; script " << launcher->experiment_script_path(plan) << ")\n  ssim status " << plan.path << "\n";
  if (req.json) std::cout << "{\"job_id\": \"" << id << "\", \"path\": \"" << plan.path << "\"}\n";
  return 0;
}

}  // namespace ssim::app
