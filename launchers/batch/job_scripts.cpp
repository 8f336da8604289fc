#include "launchers/batch/job_scripts.hpp"

#include <unistd.h>

#include <filesystem>

#include "launchers/batch/scheduler_allocation.hpp"
#include "launchers/job_files.hpp"
#include "lib/state/launch_log.hpp"
#include "launchers/placement/placement.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/errors.hpp"
#include "lib/util/experiment_dir.hpp"

namespace ssim::launchers {
using namespace ssim::launch;
using namespace std::chrono_literals;

void add_root_exports(plan::Env& env) {
  if (::geteuid() != 0) return;
  env.emplace_back("OMPI_ALLOW_RUN_AS_ROOT", "1");
  env.emplace_back("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
}

std::vector<std::string> JobScripts::wrap_in_job(const std::string& run_dir, const std::vector<std::string>& command,
                                                 const std::string& time) const {
  // Inside the job, the supervisor writes the program's exit status beside it: exact
  // even where the scheduler forgets finished jobs (PBS without job history). With the
  // job's wall time, an end by the scheduler's signal once it ran out reads as such.
  std::vector<std::string> argv = {supervisor_, "--wrap", status_file(run_dir)};
  if (const auto var = scheduler_.node_variable(); !var.empty()) argv.insert(argv.end(), {"--node-variable", var});
  if (const long seconds = time_seconds(time); seconds > 0)
    argv.insert(argv.end(), {"--walltime", std::to_string(seconds)});
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

BatchJob JobScripts::job_for(const std::string& name, const std::string& run_dir, const spec::BatchSettings& settings,
                             const plan::Resources& res, const std::vector<std::string>& setup, const plan::Env& env,
                             const std::vector<std::string>& command) const {
  BatchJob job;
  job.name = name;
  job.settings = settings;
  job.res = res;
  job.setup = setup;
  job.setup.insert(job.setup.end(), settings.setup.begin(), settings.setup.end());
  job.run_dir = run_dir;
  job.out = run_dir + "/" + name + ".out";
  job.err = run_dir + "/" + name + ".err";
  job.env = env;
  job.command = wrap_in_job(run_dir, command, settings.time);
  return job;
}

std::string JobScripts::batch_script_path(const plan::Step& step) const {
  if (!step.program->batch) return "";
  return step.run_dir + "/" + step.name + "." + scheduler_.script_extension();
}

std::string JobScripts::batch_script(const plan::Step& step) const {
  if (!step.program->batch) return "";
  // The script a run submits (--dry-run prints it): the launch's environment, as the
  // engine builds it (plan::launch_env), with the experiment's id still to be made.
  plan::Env env = plan::launch_env(step, plan::kExperimentIdPlaceholder, 1);
  add_root_exports(env);
  return scheduler_.render_script(job_for(step.name, step.run_dir, *step.program->batch, step.program->res,
                                          step.program->setup, env, launcher_.command(step)));
}

int JobScripts::experiment_nodes(const plan::Plan& plan) const {
  if (plan.batch && plan.batch->nodes) return *plan.batch->nodes;
  return std::max(1, nodes_needed(plan, cpus_per_node(scheduler_, runner_, plan,
                                                      plan.batch.value_or(spec::BatchSettings{}), log_)));
}

std::string JobScripts::experiment_script_path(const plan::Plan& plan) const {
  return ssim_dir(plan.path) + "/batch." + scheduler_.script_extension();
}

std::string JobScripts::experiment_script(const plan::Plan& plan, const std::vector<std::string>& command) const {
  BatchJob job;
  job.name = "ssim-" + plan.name;
  if (plan.batch) job.settings = *plan.batch;
  job.settings.nodes = experiment_nodes(plan);  // the database's and each exclusive entity's own
  job.whole_nodes = true;
  if (const auto query = scheduler_.cpus_per_node_command(job.settings))
    job.node_cpus = scheduler_.parse_cpus_per_node(runner_.run(*query, 20s));
  job.setup = plan.setup;
  if (plan.batch) job.setup.insert(job.setup.end(), plan.batch->setup.begin(), plan.batch->setup.end());
  const std::string state_dir = ssim_dir(plan.path);
  job.run_dir = std::filesystem::current_path().string();  // experiment.path resolves from here, inside too
  job.out = state_dir + "/batch.out";
  job.err = state_dir + "/batch.err";
  job.command = wrap_in_job(state_dir, command, job.settings.time);
  return scheduler_.render_script(job);
}

std::string JobScripts::submit_script(const std::string& path, const std::string& script, std::string& error) {
  write_file_atomically(path, script, 0700);  // 0700: it may export SSDB_PASSWORD
  const SubmitCommand c = scheduler_.submit_command(path);
  const auto r = runner_.run(c.argv, 60s, c.stdin_path);  // never retried: it could submit twice
  const std::string id = scheduler_.job_id_from_submit_output(r);
  if (id.empty()) {
    error = c.argv[0] + kSubmitRefused +
            (r.err.empty() ? (r.timed_out ? "timed out" : "exit " + std::to_string(r.exit_code)) : r.err);
    while (!error.empty() && error.back() == '\n') error.pop_back();
  }
  return id;
}

std::string JobScripts::submit_experiment(const plan::Plan& plan, const std::vector<std::string>& command) {
  std::string error;
  const std::string id = submit_script(experiment_script_path(plan), experiment_script(plan, command), error);
  if (id.empty()) throw EnvironmentError(error);
  return id;
}

JobRef JobScripts::submit(const LaunchRequest& r, const plan::Resources& res, const std::vector<std::string>& setup) {
  ::unlink(status_file(r.run_dir).c_str());  // a rerun must not read the last attempt's files
  ::unlink(cancel_marker(r.run_dir).c_str());
  // Its record is the status file its wrapper writes; logged as a launch all the same, so
  // that a keeper's record of an earlier attempt (run otherwise) never stands for this one.
  if (!r.launch_log.empty()) try {
      state::append_launches(r.launch_log, state::this_environment(), {{r.run_dir, r.argv, r.env, r.time_limit}});
    } catch (const std::exception&) {
      // Then `ssim env` cannot show it; its status is its wrapper's file as ever.
    }
  std::string error;
  try {
    const std::string path = r.run_dir + "/" + r.name + "." + scheduler_.script_extension();
    const std::string id = submit_script(
        path, scheduler_.render_script(job_for(r.name, r.run_dir, *r.batch, res, setup, r.env, r.argv)), error);
    if (!id.empty()) return JobRef{state::JobId::batch_job(id), r.name, r.run_dir};
  } catch (const std::exception& e) {
    error = e.what();
  }
  state::StatusFile refused;
  refused.exited = true, refused.exit_code = 127, refused.error = error;
  write_file_atomically(status_file(r.run_dir), state::encode_status_file(refused));
  return JobRef{state::JobId::refused(), r.name, r.run_dir};
}

}  // namespace ssim::launchers
