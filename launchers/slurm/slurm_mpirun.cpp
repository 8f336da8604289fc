#include "launchers/slurm/slurm_mpirun.hpp"

#include "launchers/placement/allocation.hpp"

namespace ssim::launchers::slurm {

// Under Slurm, Open MPI starts its daemons with srun itself (one step, "orted");
// plm_slurm_args puts them on this step's nodes, and the SLURM_* variables give mpirun
// the step's view of the allocation instead of the whole of it.
void slurm_mpirun_nodes(std::vector<std::string>& argv, const Placement& p, const RankContext& c,
                        const plan::Resources& res, plan::Env& env) {
  std::string srun_args = "--nodelist=" + join_hosts(p.nodes);
  // Its daemons hold one CPU per node; a packed step's ranks use the CPUs ssim counted
  // for them, so the daemons overlap rather than wait for whole nodes.
  if (p.shared || p.packed) srun_args += " --overlap";
  argv.insert(argv.end(), {"--mca", "plm_slurm_args", srun_args});
  const std::string nodes = join_hosts(p.nodes);
  const std::string n = std::to_string(p.nodes.size());
  const std::string spread = std::to_string(tasks_per_node(res, static_cast<int>(p.nodes.size()))) + "(x" + n + ")";
  for (const auto& [k, v] : plan::Env{{"SLURM_JOB_ID", c.allocation_id},
                                      {"SLURM_JOBID", c.allocation_id},
                                      {"SLURM_JOB_NODELIST", nodes},
                                      {"SLURM_NODELIST", nodes},
                                      {"SLURM_JOB_NUM_NODES", n},
                                      {"SLURM_NNODES", n},
                                      {"SLURM_TASKS_PER_NODE", spread},
                                      {"SLURM_JOB_CPUS_PER_NODE", spread}})
    env.emplace_back(k, v);
}

}  // namespace ssim::launchers::slurm
