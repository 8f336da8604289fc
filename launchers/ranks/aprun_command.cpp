// aprun (Cray ALPS): -n PEs, -N PEs per node, -d CPUs per PE, -L the placed nodes.
#include "launchers/placement/allocation.hpp"
#include "launchers/ranks/rank_command.hpp"

namespace ssim::launchers {
using namespace ssim::launch;

std::vector<std::string> aprun_command(const plan::Resources& res, const Placement& placement) {
  std::vector<std::string> argv = {"aprun", "-n", std::to_string(res.ntasks)};
  const int nodes = placement.nodes.empty() ? std::max(1, res.nodes) : static_cast<int>(placement.nodes.size());
  argv.insert(argv.end(), {"-N", std::to_string(tasks_per_node(res, nodes))});
  if (res.cpus_per_task) argv.insert(argv.end(), {"-d", std::to_string(res.cpus_per_task)});
  if (!placement.nodes.empty()) argv.insert(argv.end(), {"-L", join_hosts(placement.nodes)});
  for (const auto& [k, v] : res.launcher_args) argv.push_back(v.empty() ? "--" + k : "--" + k + "=" + v);
  return argv;
}

}  // namespace ssim::launchers
