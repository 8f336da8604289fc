#include "lib/session/batch_submit.hpp"
#include "lib/util/experiment_dir.hpp"

#include <filesystem>
#include <optional>

#include "lib/session/claim.hpp"
#include "lib/session/launcher_setup.hpp"
#include "lib/launch/registry.hpp"
#include "lib/engine/engine.hpp"
#include "lib/engine/refresh.hpp"
#include "lib/generate/generate.hpp"
#include "lib/state/history.hpp"
#include "lib/state/lock.hpp"
#include "lib/state/status_file.hpp"
#include "lib/util/clock.hpp"
#include "lib/state/job_id.hpp"
#include "lib/util/errors.hpp"
#include "lib/util/self_exe.hpp"

namespace ssim::session {

namespace fs = std::filesystem;

std::vector<std::string> in_batch_command(const std::string& file, bool resume) {
  std::vector<std::string> argv = {self_exe(), "run", fs::absolute(file).string(), "--in-batch"};
  if (resume) argv.push_back("--resume");
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

namespace {

// ssim run --batch --resume: the earlier experiment, checked to be over (its batch job
// and whatever it started), for the resumed job to continue.
state::Manifest earlier_to_resume(const plan::Plan& plan) {
  std::error_code ec;
  if (!fs::exists(state::manifest_path(plan.path), ec))
    throw UsageError("nothing to resume: no experiment at " + plan.path);
  state::Manifest previous = state::load_manifest(plan.path);
  state::Manifest jobs = previous;  // the earlier batch job itself: queued or running is not over
  std::erase_if(jobs.entities, [](const state::EntityRecord& e) {
    return e.type != state::EntityKind::Batch || e.job_id.empty() || state::is_terminal(e.status);
  });
  if (!jobs.entities.empty()) {
    auto launcher = launch::make_launcher(previous.launcher);
    engine::refresh(jobs, *launcher);
    for (const auto& e : jobs.entities)
      if (!state::is_terminal(e.status))
        throw UsageError("cannot resume " + plan.path + ": its batch job " +
                         (e.extra().native_id.empty() ? state::parse_job_id(e.job_id).label() : e.extra().native_id) +
                         " is still " + to_string(e.status) + "; wait for it to end, or end it with: ssim stop " +
                         plan.path);
  }
  refuse_if_still_alive(previous, plan);
  return previous;
}

}  // namespace

Submitted submit_experiment(const Loaded& l, const std::string& file, bool overwrite, bool resume, const Notes& notes) {
  const plan::Plan& plan = l.plan;
  auto launcher = launch::make_launcher(plan.launcher);
  auto& submission = batch_submission(*launcher);
  const auto command = in_batch_command(file, resume);
  (void)submission.experiment_script(plan, command);  // a value no script can carry: exit 2 now
  check_environment(plan, *launcher, true);           // sbatch / qsub / bsub missing: exit 3 now
  const auto mode = overwrite ? generate::Existing::Overwrite
                    : resume  ? generate::Existing::Resume
                              : generate::Existing::Refuse;
  // The lock is held until the job is recorded: a scheduler may start the job at once,
  // and its `ssim run --in-batch` waits for this lock to read the manifest written below.
  auto lock = claim_experiment(plan, mode, "submit");
  std::optional<state::Manifest> previous;
  if (resume) previous = earlier_to_resume(plan);
  const auto generated = generate_claimed(plan, mode);
  if (notes)
    for (const auto& w : generated.warnings) notes("warning: " + w);
  // The earlier job's record (resume) is not this job's: a fresh one is written as it
  // starts; nor is the stop that ended it (its marker would make this job "stopped by ssim").
  std::error_code ignored;
  fs::remove(state::status_file_path(ssim_dir(plan.path)), ignored);
  fs::remove(state::cancel_marker_path(ssim_dir(plan.path)), ignored);
  const std::string id = submission.submit_experiment(plan, command);
  state::EntityRecord batch;
  batch.name = "batch";
  batch.type = state::EntityKind::Batch;
  batch.run_dir = ssim_dir(plan.path);
  batch.job_id = state::JobId::batch_job(id).str();
  batch.extra_mut().native_id = id;
  batch.status = state::Status::Pending;
  batch.start = now_seconds();
  batch.attempt = 1;
  if (previous)
    for (const auto& e : previous->entities)
      if (e.type == state::EntityKind::Batch) {
        batch.attempt = e.attempt + 1;
        batch.extra_mut().earlier_attempts = e.extra().earlier_attempts;
        batch.extra_mut().earlier_attempts.push_back(state::attempt_record(e));
      }
  // Resumed: what completed stays completed, what will run again shows as waiting for
  // the job (resume_manifest's rule, as ssim run --resume), with the same experiment id.
  state::Manifest m = previous ? engine::resume_manifest(plan, std::move(*previous))
                               : engine::new_manifest(plan, state::new_experiment_id());
  if (!previous) m.created = now_seconds();
  m.finished = 0;
  m.entities.insert(m.entities.begin(), batch);
  state::save_manifest(m);
  state::record_run(fs::current_path().string(), plan.file, plan.path);
  return {id, plan.path, submission.experiment_nodes(plan), submission.experiment_script_path(plan)};
}

}  // namespace ssim::session
