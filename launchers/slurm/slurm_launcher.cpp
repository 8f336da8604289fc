#include "launchers/slurm/slurm_launcher.hpp"

#include <unistd.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "launchers/slurm/hostlist.hpp"
#include "launchers/slurm/sacct.hpp"
#include "launchers/slurm/sbatch_script.hpp"
#include "launchers/slurm/srun_command.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/errors.hpp"

namespace ssim::launchers::slurm {

using state::Status;
using namespace std::chrono_literals;

std::string recorded_step(const std::string& run_dir) {
  auto text = read_file(run_dir + "/.ssim-step");
  if (!text) return "";
  while (!text->empty() && (text->back() == '\n' || text->back() == ' ')) text->pop_back();
  return *text;
}

SlurmLauncher::SlurmLauncher(std::unique_ptr<CommandRunner> runner, Log log)
    : runner_(std::move(runner)), log_(std::move(log)) {}

void SlurmLauncher::set_allocation(const plan::Plan& plan, Allocation allocation) {
  placement_ = place(plan, allocation.hosts);
  for (const auto& s : plan.steps) resources_[s.name] = s.res;
  setup_ = plan.setup;
  if (plan.database) {
    database_batched_ = plan.database->batch.has_value();
    database_res_ = plan.database->res;
  }
  allocation_ = std::move(allocation);
}

std::vector<std::string> SlurmLauncher::wrapped(const std::string& run_dir,
                                                const std::vector<std::string>& program) const {
  std::vector<std::string> argv = {LocalLauncher::default_supervisor(), "--record-step", run_dir + "/.ssim-step", "--"};
  argv.insert(argv.end(), program.begin(), program.end());
  return argv;
}

namespace {
bool uses_mpirun(const plan::Resources& r) {
  return r.mpi == plan::MpiKind::Mpirun || r.mpi == plan::MpiKind::Mpiexec;
}
}  // namespace

std::vector<std::string> SlurmLauncher::command(const plan::Step& step) const {
  std::vector<std::string> program = {step.exe};
  program.insert(program.end(), step.args.begin(), step.args.end());
  if (step.batch)  // inside its own batch job: the job is the allocation
    return srun_command("", step.name, step.res, Placement{}, wrapped(step.run_dir, program));
  const auto it = placement_.steps.find(step.name);
  const Placement p = it != placement_.steps.end() ? it->second : Placement{{"<node>"}, false};
  if (uses_mpirun(step.res)) {
    // mpirun inside the allocation: Open MPI starts its daemons with srun itself (one
    // step, "orted"); plm_slurm_args puts them on this step's nodes. start() gives
    // mpirun the step's view of the allocation in SLURM_* variables.
    std::vector<std::string> argv = {step.res.mpi == plan::MpiKind::Mpirun ? "mpirun" : "mpiexec", "-np",
                                     std::to_string(step.res.ntasks)};
    if (::geteuid() == 0) argv.push_back("--allow-run-as-root");
    std::string srun_args = "--nodelist=" + join_hosts(p.nodes);
    if (p.shared) srun_args += " --overlap";
    argv.insert(argv.end(), {"--mca", "plm_slurm_args", srun_args});
    for (const auto& [k, v] : step.res.launcher_args) {
      argv.push_back("--" + k);
      if (!v.empty()) argv.push_back(v);
    }
    const auto w = wrapped(step.run_dir, program);
    argv.insert(argv.end(), w.begin(), w.end());
    return argv;
  }
  return srun_command(allocation_.job_id, step.name, step.res, p, wrapped(step.run_dir, program));
}

std::vector<std::string> SlurmLauncher::database_command(int shard, const std::string& run_dir,
                                                         const std::vector<std::string>& inner) const {
  const plan::Resources& res = database_res_;
  if (database_batched_) return srun_command("", "orchestrator", res, Placement{}, wrapped(run_dir, inner));
  const Placement p = shard < static_cast<int>(placement_.database.size()) ? placement_.database[shard]
                                                                           : Placement{{"<node>"}, false};
  return srun_command(allocation_.job_id, "orchestrator", res, p, wrapped(run_dir, inner));
}

std::string SlurmLauncher::script_for(const LaunchRequest& r, const spec::BatchSettings& settings) const {
  BatchJob job;
  job.name = r.name;
  job.settings = settings;
  // The job asks for what its step will use, as a hand-written script would.
  const auto res = resources_.find(r.name);
  const plan::Resources step = res != resources_.end() ? res->second : database_res_;
  if (!job.settings.nodes && step.nodes) job.settings.nodes = step.nodes;
  job.resources.emplace_back("ntasks", std::to_string(step.ntasks));
  if (step.tasks_per_node) job.resources.emplace_back("ntasks-per-node", std::to_string(step.tasks_per_node));
  if (step.cpus_per_task) job.resources.emplace_back("cpus-per-task", std::to_string(step.cpus_per_task));
  if (step.gpus_per_task) job.resources.emplace_back("gpus-per-task", std::to_string(step.gpus_per_task));
  job.setup = setup_;
  job.setup.insert(job.setup.end(), settings.setup.begin(), settings.setup.end());
  job.run_dir = r.run_dir;
  job.out = r.run_dir + "/" + r.name + ".out";
  job.err = r.run_dir + "/" + r.name + ".err";
  job.env = r.env;
  job.command = r.argv;
  return sbatch_script(job);
}

std::string SlurmLauncher::batch_script(const plan::Step& step) const {
  if (!step.batch) return "";
  LaunchRequest r{step.name, step.run_dir, command(step), step.env, step.batch};
  return script_for(r, *step.batch);
}

// A batch entity: its script in the run directory (0600: it exports SSDB_PASSWORD),
// submitted with sbatch --parsable; the job id is its reference.
JobRef SlurmLauncher::submit(const LaunchRequest& r) {
  const std::string path = r.run_dir + "/" + r.name + ".sbatch";
  std::string error;
  try {
    write_file_atomically(path, script_for(r, *r.batch), 0700);
    const auto res = runner_->run({"sbatch", "--parsable", path}, 60s);  // never retried: it could submit twice
    std::string id = res.out.substr(0, res.out.find_first_of(";\n"));
    if (res.exit_code == 0 && !id.empty()) {
      return JobRef{"sbatch:" + id, r.name, r.run_dir};
    }
    error = "sbatch refused " + r.name + ": " + (res.err.empty() ? "exit " + std::to_string(res.exit_code) : res.err);
  } catch (const std::exception& e) {
    error = e.what();
  }
  while (!error.empty() && error.back() == '\n') error.pop_back();
  write_file_atomically(status_file(r.run_dir),
                        nlohmann::json{{"state", "exited"}, {"exit_code", 127}, {"signal", nullptr}, {"error", error}}.dump());
  return JobRef{"0", r.name, r.run_dir};
}

std::vector<JobRef> SlurmLauncher::start(std::span<const LaunchRequest> requests) {
  std::vector<LaunchRequest> reqs(requests.begin(), requests.end());
  for (auto& r : reqs) {
    ::unlink((r.run_dir + "/.ssim-step").c_str());
    if (::geteuid() == 0) {  // Open MPI refuses root unless told
      r.env.emplace_back("OMPI_ALLOW_RUN_AS_ROOT", "1");
      r.env.emplace_back("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    }
    const auto res = resources_.find(r.name);
    const auto where = placement_.steps.find(r.name);
    if (res != resources_.end() && where != placement_.steps.end() && uses_mpirun(res->second)) {
      const std::string nodes = join_hosts(where->second.nodes);
      const std::string n = std::to_string(where->second.nodes.size());
      const int per_node = (res->second.ntasks + static_cast<int>(where->second.nodes.size()) - 1) /
                           static_cast<int>(where->second.nodes.size());
      const std::string spread = std::to_string(per_node) + "(x" + n + ")";
      for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
               {"SLURM_JOB_ID", allocation_.job_id}, {"SLURM_JOBID", allocation_.job_id},
               {"SLURM_JOB_NODELIST", nodes},       {"SLURM_NODELIST", nodes},
               {"SLURM_JOB_NUM_NODES", n},          {"SLURM_NNODES", n},
               {"SLURM_TASKS_PER_NODE", spread},    {"SLURM_JOB_CPUS_PER_NODE", spread}})
        r.env.emplace_back(k, v);
    }
  }
  // Batch entities are submitted; the others' srun runs under ssim-supervise here.
  std::vector<LaunchRequest> local;
  std::vector<size_t> local_index;
  std::vector<JobRef> refs(reqs.size());
  for (size_t i = 0; i < reqs.size(); ++i) {
    if (reqs[i].batch) {
      refs[i] = submit(reqs[i]);
    } else {
      local.push_back(reqs[i]);
      local_index.push_back(i);
    }
  }
  const auto started = local_.start(local);
  for (size_t k = 0; k < started.size(); ++k) refs[local_index[k]] = started[k];
  return refs;
}

std::vector<JobStatus> SlurmLauncher::poll(std::span<const JobRef> jobs) {
  // srun's own state first: a step that ends while sacct runs must still be found with
  // its id, and the id file is written before srun can end.
  auto local = local_.poll(jobs);  // for batch jobs this only matters when sbatch failed
  std::vector<std::string> steps;
  std::string ids;
  for (const auto& j : jobs) {
    // A batch entity is tracked by its job (which also fails when its setup fails).
    steps.push_back(j.id.rfind("sbatch:", 0) == 0 ? j.id.substr(7) : recorded_step(j.run_dir));
    if (!steps.back().empty()) ids += (ids.empty() ? "" : ",") + steps.back();
  }
  std::map<std::string, JobStatus> accounted;
  if (!ids.empty()) {
    ++queries_;
    if (!accounting_off_) {
      const auto r = run_with_retries(
          *runner_, {"sacct", "--parsable2", "--noheader", "--format=JobID,State,ExitCode", "-j", ids}, 20s, log_,
          /*tries=*/2);
      // A failing sacct is not a job state: fall back on what srun's supervisor saw.
      if (r.exit_code == 0) accounted = parse_sacct(r.out);
      else if (r.err.find("accounting storage is disabled") != std::string::npos) accounting_off_ = true;
    }
    if (accounting_off_) {
      // Without accounting: squeue -t all knows jobs for MinJobAge; steps end with srun.
      const auto r = run_with_retries(*runner_, {"squeue", "-h", "-t", "all", "-j", ids, "-o", "%i|%T|%r"}, 20s, log_, 2);
      if (r.exit_code == 0) accounted = parse_squeue(r.out);
    }
  }
  std::vector<JobStatus> out;
  for (size_t i = 0; i < jobs.size(); ++i) {
    JobStatus s = local[i];
    s.native_id = steps[i];
    const auto it = steps[i].empty() ? accounted.end() : accounted.find(steps[i]);
    if (jobs[i].id.rfind("sbatch:", 0) == 0) {
      // A batch job: Slurm alone knows its state; one it does not know is unknown.
      const bool cancelled = ::access(cancel_marker(jobs[i].run_dir).c_str(), F_OK) == 0;
      if (it != accounted.end()) {
        s = it->second;
        if (cancelled && state::is_terminal(s.status)) s.status = Status::Cancelled;
      } else {
        s = JobStatus{};
        s.status = Status::Pending;  // submitted, not yet in accounting
      }
      s.native_id = steps[i];
      out.push_back(s);
      continue;
    }
    if (it != accounted.end()) {
      JobStatus a = it->second;
      a.native_id = steps[i];
      a.pid = s.pid;
      a.start = s.start;
      a.end = s.end;
      const bool srun_ended = state::is_terminal(s.status);
      if (state::is_terminal(a.status)) {
        if (s.status == Status::Cancelled) a.status = Status::Cancelled;  // ssim stopped it
        s = a;
      } else if (!srun_ended) {
        s = a;  // running or pending, per Slurm
      }  // else: srun ended and accounting lags behind; srun's exit code stands
    }
    out.push_back(s);
  }
  return out;
}

void SlurmLauncher::cancel(std::span<const JobRef> jobs, bool force) {
  std::vector<std::string> argv = {"scancel"};
  for (const auto& j : jobs) {
    const std::string step = j.id.rfind("sbatch:", 0) == 0 ? j.id.substr(7) : recorded_step(j.run_dir);
    if (!step.empty()) argv.push_back(step);
  }
  if (argv.size() > 1) run_with_retries(*runner_, argv, 20s, log_, 2);  // one call for every step
  for (const auto& j : jobs)
    if (j.id.rfind("sbatch:", 0) == 0) write_file_atomically(cancel_marker(j.run_dir), "");
  local_.cancel(jobs, force);  // and the srun processes on this host
}

std::optional<Allocation> current_allocation() {
  const char* id = std::getenv("SLURM_JOB_ID");
  if (!id || !*id) return std::nullopt;
  const char* nodes = std::getenv("SLURM_JOB_NODELIST");
  if (!nodes) nodes = std::getenv("SLURM_NODELIST");
  return Allocation{id, nodes ? expand_hostlist(nodes) : std::vector<std::string>{}};
}

Allocation request_allocation(CommandRunner& runner, const std::string& name, const spec::BatchSettings& s, int nodes) {
  // Whole nodes: ssim places steps node by node (options: {oversubscribe: ""} etc. still apply).
  std::vector<std::string> argv = {"salloc", "--no-shell", "--exclusive", "--job-name=ssim-" + name,
                                   "--nodes=" + std::to_string(s.nodes.value_or(nodes))};
  if (!s.time.empty()) argv.push_back("--time=" + s.time);
  if (!s.account.empty()) argv.push_back("--account=" + s.account);
  if (!s.queue.empty()) argv.push_back("--partition=" + s.queue);
  for (const auto& [k, v] : s.options) argv.push_back(v.value.empty() ? "--" + k : "--" + k + "=" + v.value);
  const auto r = runner.run(argv, 600s);
  const std::string id = parse_salloc_job_id(r.err + r.out);
  if (r.exit_code != 0 || id.empty())
    throw EnvironmentError("salloc refused the allocation: " + (r.err.empty() ? "exit " + std::to_string(r.exit_code) : r.err));
  const auto q = run_with_retries(runner, {"squeue", "-h", "-j", id, "-o", "%N"}, 20s, {});
  std::string list = q.out;
  while (!list.empty() && (list.back() == '\n' || list.back() == ' ')) list.pop_back();
  if (q.exit_code != 0 || list.empty()) {
    release_allocation(runner, id);
    throw EnvironmentError("cannot read the nodes of allocation " + id);
  }
  return Allocation{id, expand_hostlist(list)};
}

void release_allocation(CommandRunner& runner, const std::string& job_id) {
  run_with_retries(runner, {"scancel", job_id}, 20s, {}, 2);
}

}  // namespace ssim::launchers::slurm
