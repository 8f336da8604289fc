#include "launchers/ranks/srun_command.hpp"

#include "launchers/placement/allocation.hpp"

namespace ssim::launchers {
using namespace ssim::launch;

std::vector<std::string> srun_command(const std::string& job_id, const std::string& name, const plan::Resources& res,
                                      const Placement& placement, const std::vector<std::string>& program) {
  std::vector<std::string> argv = {"srun"};
  // Inside ssim's own batch job there is no job id or placement to give: the job is it.
  if (!job_id.empty()) argv.push_back("--jobid=" + job_id);
  argv.push_back("--job-name=" + name);
  if (!placement.nodes.empty()) {
    argv.push_back("--nodelist=" + join_hosts(placement.nodes));
    argv.push_back("--nodes=" + std::to_string(placement.nodes.size()));
  } else if (res.nodes) {
    argv.push_back("--nodes=" + std::to_string(res.nodes));
  }
  argv.push_back("--ntasks=" + std::to_string(res.ntasks));
  argv.push_back("--kill-on-bad-exit=1");
  if (res.tasks_per_node) argv.push_back("--ntasks-per-node=" + std::to_string(res.tasks_per_node));
  if (res.cpus_per_task) argv.push_back("--cpus-per-task=" + std::to_string(res.cpus_per_task));
  if (res.gpus_per_task) argv.push_back("--gpus-per-task=" + std::to_string(res.gpus_per_task));
  if (!res.time.empty()) argv.push_back("--time=" + res.time);
  // Since Slurm 21.08 a step gets every CPU of its nodes. A packed step asks for only
  // its own (--exact) and for none of the job's memory (--mem=0: the job's limit still
  // applies), so steps ssim packed side by side start at once; steps that share
  // CPUs on purpose (hosts:) say --overlap.
  if (placement.packed)
    argv.insert(argv.end(), {"--exact", "--mem=0"});
  else if (placement.shared)
    argv.push_back("--overlap");
  // Debian's Open MPI speaks PMIx, not PMI-2.
  const bool mpi = res.mpi == plan::MpiKind::Srun || (res.mpi == plan::MpiKind::Auto && res.ntasks > 1);
  if (mpi) argv.push_back("--mpi=pmix");
  for (const auto& [k, v] : res.launcher_args) argv.push_back(v.empty() ? "--" + k : "--" + k + "=" + v);
  argv.insert(argv.end(), program.begin(), program.end());
  return argv;
}

}  // namespace ssim::launchers
