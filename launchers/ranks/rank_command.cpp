#include "launchers/ranks/rank_command.hpp"

#include <algorithm>

#include "launchers/ranks/srun_command.hpp"

namespace ssim::launchers {

RankLauncher rank_launcher_for(plan::MpiKind mpi, RankLauncher scheduler_default) {
  return mpi == plan::MpiKind::Auto || mpi == plan::MpiKind::None ? scheduler_default : mpi;
}

int tasks_per_node(const plan::Resources& res, int nodes) {
  if (res.tasks_per_node > 0) return res.tasks_per_node;
  nodes = std::max(1, nodes);
  return (res.ntasks + nodes - 1) / nodes;
}

StepLaunch rank_command(RankLauncher launcher, const std::string& name, const plan::Resources& res,
                        const Placement& placement, const RankContext& context,
                        const std::vector<std::string>& program) {
  StepLaunch out;
  switch (launcher) {
    case RankLauncher::None:
      break;
    case RankLauncher::Srun:
      out.argv = srun_command(context.allocation_id, name, res, placement, {});
      break;
    case RankLauncher::Mpirun:
      out.argv = mpirun_command("mpirun", res, placement, context, out.env);
      if (!placement.nodes.empty() || !context.hostfile_variable.empty())
        for (const auto& name : context.forward) out.argv.insert(out.argv.end(), {"-x", name});
      break;
    case RankLauncher::Mpiexec:
      out.argv = mpirun_command("mpiexec", res, placement, context, out.env);
      break;
    case RankLauncher::Aprun:
      out.argv = aprun_command(res, placement);
      break;
    case RankLauncher::Jsrun:
      out.argv = jsrun_command(res, placement);
      break;
  }
  out.argv.insert(out.argv.end(), program.begin(), program.end());
  return out;
}

}  // namespace ssim::launchers
