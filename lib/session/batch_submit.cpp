#include "lib/session/batch_submit.hpp"
#include "lib/util/experiment_dir.hpp"

#include <filesystem>

#include "lib/session/claim.hpp"
#include "lib/session/launcher_setup.hpp"
#include "lib/launch/registry.hpp"
#include "lib/engine/engine.hpp"
#include "lib/generate/generate.hpp"
#include "lib/state/history.hpp"
#include "lib/state/lock.hpp"
#include "lib/util/clock.hpp"
#include "lib/state/job_id.hpp"
#include "lib/util/errors.hpp"
#include "lib/util/self_exe.hpp"

namespace ssim::session {

namespace fs = std::filesystem;

std::vector<std::string> in_batch_command(const std::string& file) {
  std::vector<std::string> argv = {self_exe(), "run", fs::absolute(file).string(), "--in-batch"};
  for (auto& a : max_members_args()) argv.push_back(std::move(a));
  return argv;
}

Loaded load_for_batch(const std::string& file, const std::string& launcher_option) {
  Loaded l = load_to_run(file, launcher_option);
  if (plan::runs_here(l.plan) && l.spec.launcher == "auto" && launcher_option.empty()) {
    const std::string scheduler = launch::submit_launcher(launch::program_on_path);
    if (!scheduler.empty()) return load_to_run(file, scheduler);
  }
  return l;
}

launch::BatchSubmission& batch_submission(launch::Launcher& launcher) {
  auto* batch = launcher.batch();
  if (!batch)
    throw UsageError("--batch submits the experiment to a batch scheduler; this experiment resolves to launcher " +
                     launcher.name() + " (choose a scheduler with launcher: or --launcher)");
  return *batch;
}

Submitted submit_experiment(const Loaded& l, const std::string& file, bool overwrite, const Notes& notes) {
  const plan::Plan& plan = l.plan;
  auto launcher = launch::make_launcher(plan.launcher);
  auto& submission = batch_submission(*launcher);
  (void)submission.experiment_script(plan, in_batch_command(file));  // a value no script can carry: exit 2 now
  check_environment(plan, *launcher, true);                          // sbatch / qsub / bsub missing: exit 3 now
  const auto mode = overwrite ? generate::Existing::Overwrite : generate::Existing::Refuse;
  // The lock is held until the job is recorded: a scheduler may start the job at once,
  // and its `ssim run --in-batch` waits for this lock to read the manifest written below.
  auto lock = claim_experiment(plan, mode, "submit");
  const auto generated = generate_claimed(plan, mode);
  if (notes)
    for (const auto& w : generated.warnings) notes("warning: " + w);
  const std::string id = submission.submit_experiment(plan, in_batch_command(file));
  state::Manifest m = engine::new_manifest(plan, state::new_experiment_id());
  m.created = now_seconds();
  state::EntityRecord batch;
  batch.name = "batch";
  batch.type = state::EntityKind::Batch;
  batch.run_dir = ssim_dir(plan.path);
  batch.launcher = plan.launcher;
  batch.job_id = state::JobId::batch_job(id).str();
  batch.native_id = id;
  batch.status = state::Status::Pending;
  batch.start = now_seconds();
  batch.attempt = 1;
  m.entities.insert(m.entities.begin(), batch);
  state::save_manifest(m);
  state::record_run(fs::current_path().string(), plan.file, plan.path);
  return {id, plan.path, submission.experiment_nodes(plan), submission.experiment_script_path(plan)};
}

}  // namespace ssim::session
