#include "apps/ssim/batch_submit.hpp"

#include <filesystem>
#include <iostream>

#include "launchers/command_runner.hpp"
#include "launchers/slurm/placement.hpp"
#include "launchers/slurm/sbatch_script.hpp"
#include "lib/engine/engine.hpp"
#include "lib/generate/generate.hpp"
#include "lib/state/history.hpp"
#include "lib/state/lock.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/errors.hpp"
#include "lib/util/self_exe.hpp"

namespace ssim::app {

namespace fs = std::filesystem;

std::string experiment_batch_script(const plan::Plan& plan, const std::string& file) {
  launchers::slurm::BatchJob job;
  job.name = "ssim-" + plan.name;
  if (plan.batch) job.settings = *plan.batch;
  // Nodes from the placement plan: the database's and each exclusive entity's own.
  if (!job.settings.nodes) job.settings.nodes = std::max(1, launchers::slurm::nodes_needed(plan));
  job.settings.options.insert(job.settings.options.begin(), {"exclusive", spec::Text{"", {}}});
  job.setup = plan.setup;
  if (plan.batch) job.setup.insert(job.setup.end(), plan.batch->setup.begin(), plan.batch->setup.end());
  const std::string state_dir = plan.path + "/.ssim";
  job.run_dir = fs::current_path().string();  // experiment.path resolves from here, inside too
  job.out = state_dir + "/batch.out";
  job.err = state_dir + "/batch.err";
  job.command = {self_exe(), "run", fs::absolute(file).string(), "--in-batch"};
  return launchers::slurm::sbatch_script(job);
}

int submit_experiment(const Loaded& l, const RunRequest& req) {
  const plan::Plan& plan = l.plan;
  if (plan.launcher != "slurm")
    throw UsageError("--batch submits through sbatch: it needs launcher slurm (this experiment resolves to " +
                     plan.launcher + ")");
  state::refuse_if_running(plan.path);
  const auto generated = generate::generate(plan, req.overwrite ? generate::Existing::Overwrite
                                                                : generate::Existing::Refuse);
  for (const auto& w : generated.warnings) std::cerr << "ssim: warning: " << w << "\n";

  const std::string state_dir = plan.path + "/.ssim";
  const std::string script = state_dir + "/batch.sbatch";
  write_file_atomically(script, experiment_batch_script(plan, req.file), 0700);
  const int nodes = plan.batch && plan.batch->nodes ? *plan.batch->nodes
                                                    : std::max(1, launchers::slurm::nodes_needed(plan));

  auto runner = launchers::make_process_runner();
  const auto r = runner->run({"sbatch", "--parsable", script}, std::chrono::seconds(60));
  const std::string id = r.out.substr(0, r.out.find_first_of(";\n"));
  if (r.exit_code != 0 || id.empty()) throw EnvironmentError("sbatch refused the experiment: " + r.err);

  state::Manifest m = engine::new_manifest(plan, state::new_experiment_id());
  m.created = now_seconds();
  state::EntityRecord batch;
  batch.name = "batch";
  batch.type = "batch";
  batch.run_dir = state_dir;
  batch.launcher = "slurm";
  batch.job_id = "sbatch:" + id;
  batch.native_id = id;
  batch.status = state::Status::Pending;
  batch.start = now_seconds();
  batch.attempt = 1;
  m.entities.insert(m.entities.begin(), batch);
  state::save_manifest(m);
  state::record_run(fs::current_path().string(), plan.file, plan.path);
  std::cerr << "ssim: submitted " << plan.name << " as batch job " << id << " (" << nodes
            << " nodes; script " << script << ")\n  ssim status " << plan.path << "\n";
  if (req.json) std::cout << "{\"job_id\": \"" << id << "\", \"path\": \"" << plan.path << "\"}\n";
  return 0;
}

}  // namespace ssim::app
