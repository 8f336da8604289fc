#include "launchers/slurm/slurm_launcher.hpp"

#include <unistd.h>

#include <cstdlib>

#include "launchers/slurm/hostlist.hpp"
#include "launchers/slurm/sacct.hpp"
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
  plan::Resources res;
  res.mpi = plan::MpiKind::None;
  const Placement p = shard < static_cast<int>(placement_.database.size()) ? placement_.database[shard]
                                                                           : Placement{{"<node>"}, false};
  return srun_command(allocation_.job_id, "orchestrator", res, p, wrapped(run_dir, inner));
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
  return local_.start(reqs);  // srun runs under ssim-supervise on this host
}

std::vector<JobStatus> SlurmLauncher::poll(std::span<const JobRef> jobs) {
  // srun's own state first: a step that ends while sacct runs must still be found with
  // its id, and the id file is written before srun can end.
  auto local = local_.poll(jobs);
  std::vector<std::string> steps;
  std::string ids;
  for (const auto& j : jobs) {
    steps.push_back(recorded_step(j.run_dir));
    if (!steps.back().empty()) ids += (ids.empty() ? "" : ",") + steps.back();
  }
  std::map<std::string, JobStatus> accounted;
  if (!ids.empty()) {
    ++queries_;
    const auto r = run_with_retries(*runner_,
                                    {"sacct", "--parsable2", "--noheader", "--format=JobID,State,ExitCode", "-j", ids},
                                    20s, log_);
    // A failing sacct is not a job state: fall back on what srun's supervisor saw.
    if (r.exit_code == 0) accounted = parse_sacct(r.out);
  }
  std::vector<JobStatus> out;
  for (size_t i = 0; i < jobs.size(); ++i) {
    JobStatus s = local[i];
    s.native_id = steps[i];
    const auto it = steps[i].empty() ? accounted.end() : accounted.find(steps[i]);
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
    const std::string step = recorded_step(j.run_dir);
    if (!step.empty()) argv.push_back(step);
  }
  if (argv.size() > 1) run_with_retries(*runner_, argv, 20s, log_, 2);  // one call for every step
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
