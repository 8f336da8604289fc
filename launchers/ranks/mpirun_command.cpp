// mpirun / mpiexec (Open MPI, MPICH) inside a job.
#include <cctype>

#include "launchers/batch/allocation.hpp"
#include "launchers/ranks/rank_command.hpp"

namespace ssim::launchers {

namespace {
// Under Slurm, Open MPI starts its daemons with srun itself (one step, "orted");
// plm_slurm_args puts them on this step's nodes, and the SLURM_* variables give mpirun
// the step's view of the allocation instead of the whole of it.
void slurm_view(std::vector<std::string>& argv, const Placement& p, const RankContext& c, const plan::Resources& res,
                plan::Env& env) {
  std::string srun_args = "--nodelist=" + join_hosts(p.nodes);
  // Its daemons hold one CPU per node; a packed step's ranks use the CPUs ssim counted
  // for them, so the daemons overlap rather than wait for whole nodes.
  if (p.shared || p.packed) srun_args += " --overlap";
  argv.insert(argv.end(), {"--mca", "plm_slurm_args", srun_args});
  const std::string nodes = join_hosts(p.nodes);
  const std::string n = std::to_string(p.nodes.size());
  const std::string spread = std::to_string(tasks_per_node(res, static_cast<int>(p.nodes.size()))) + "(x" + n + ")";
  for (const auto& [k, v] : plan::Env{{"SLURM_JOB_ID", c.allocation_id}, {"SLURM_JOBID", c.allocation_id},
                                      {"SLURM_JOB_NODELIST", nodes}, {"SLURM_NODELIST", nodes},
                                      {"SLURM_JOB_NUM_NODES", n}, {"SLURM_NNODES", n},
                                      {"SLURM_TASKS_PER_NODE", spread}, {"SLURM_JOB_CPUS_PER_NODE", spread}})
    env.emplace_back(k, v);
}
}  // namespace

// The marker cannot come from an experiment file: names are validated, and words hold
// no control characters the script would keep.
static const std::string kJobVariable = "\x1fjob-variable:";

std::string job_variable_word(const std::string& name) { return kJobVariable + name; }

std::string job_variable_of(const std::string& word) {
  if (word.rfind(kJobVariable, 0) != 0) return "";
  const std::string name = word.substr(kJobVariable.size());
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return "";
  return name;
}

std::vector<std::string> mpirun_command(const std::string& exe, const plan::Resources& res, const Placement& placement,
                                        const RankContext& context, plan::Env& env) {
  std::vector<std::string> argv = {exe, "-np", std::to_string(res.ntasks)};
  if (context.is_root) argv.push_back("--allow-run-as-root");
  if (!placement.nodes.empty()) {
    if (context.scheduler == "slurm") {
      slurm_view(argv, placement, context, res, env);
    } else {
      // Elsewhere: the placed hosts with their slots; mpirun reaches them through the
      // scheduler's remote start (TM, blaunch) or ssh, as on any cluster.
      const int per_node = tasks_per_node(res, static_cast<int>(placement.nodes.size()));
      std::string hosts;
      for (const auto& h : placement.nodes) hosts += (hosts.empty() ? "" : ",") + h + ":" + std::to_string(per_node);
      argv.insert(argv.end(), {"--host", hosts});
    }
  } else if (!context.hostfile_variable.empty() && res.ntasks > 1) {
    // A job of its own: its hosts, one line per slot, from the file the scheduler wrote.
    argv.insert(argv.end(), {"--hostfile", job_variable_word(context.hostfile_variable)});
  }
  // Open MPI's mpirun takes "--key value", not "--key=value".
  for (const auto& [k, v] : res.launcher_args) {
    argv.push_back("--" + k);
    if (!v.empty()) argv.push_back(v);
  }
  return argv;
}

}  // namespace ssim::launchers
