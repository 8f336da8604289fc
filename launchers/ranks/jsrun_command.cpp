// jsrun (IBM Job Step Manager, LSF CSM systems): one resource set per task. jsrun
// places resource sets itself (ssim's placement is not passed: hosts can only be chosen
// through an ERF file); --rs_per_host spreads them as the step asks.
#include "launchers/ranks/rank_command.hpp"

namespace ssim::launchers {
using namespace ssim::launch;

std::vector<std::string> jsrun_command(const plan::Resources& res, const Placement& placement) {
  const int nodes = placement.nodes.empty() ? std::max(1, res.nodes) : static_cast<int>(placement.nodes.size());
  std::vector<std::string> argv = {"jsrun",
                                   "--nrs",
                                   std::to_string(res.ntasks),
                                   "--tasks_per_rs",
                                   "1",
                                   "--cpu_per_rs",
                                   std::to_string(std::max(1, res.cpus_per_task)),
                                   "--gpu_per_rs",
                                   std::to_string(res.gpus_per_task),
                                   "--rs_per_host",
                                   std::to_string(tasks_per_node(res, nodes))};
  const bool mpi = res.mpi == plan::MpiKind::Jsrun || (res.mpi == plan::MpiKind::Auto && res.ntasks > 1);
  if (!mpi) argv.push_back("--smpiargs=none");  // not an MPI program: Spectrum MPI stays out
  for (const auto& [k, v] : res.launcher_args) argv.push_back(v.empty() ? "--" + k : "--" + k + "=" + v);
  return argv;
}

}  // namespace ssim::launchers
