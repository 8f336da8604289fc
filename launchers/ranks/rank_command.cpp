#include "launchers/ranks/rank_command.hpp"

#include <algorithm>

#include "launchers/ranks/srun_command.hpp"

namespace ssim::launchers {

std::string to_string(RankLauncher launcher) {
  switch (launcher) {
    case RankLauncher::Plain:
      return "plain";
    case RankLauncher::Srun:
      return "srun";
    case RankLauncher::Mpirun:
      return "mpirun";
    case RankLauncher::Mpiexec:
      return "mpiexec";
    case RankLauncher::Aprun:
      return "aprun";
    case RankLauncher::Jsrun:
      return "jsrun";
  }
  return "plain";
}

RankLauncher rank_launcher_for(plan::MpiKind mpi, RankLauncher scheduler_default) {
  switch (mpi) {
    case plan::MpiKind::Srun:
      return RankLauncher::Srun;
    case plan::MpiKind::Mpirun:
      return RankLauncher::Mpirun;
    case plan::MpiKind::Mpiexec:
      return RankLauncher::Mpiexec;
    case plan::MpiKind::Aprun:
      return RankLauncher::Aprun;
    case plan::MpiKind::Jsrun:
      return RankLauncher::Jsrun;
    case plan::MpiKind::Auto:
    case plan::MpiKind::None:
      return scheduler_default;
  }
  return scheduler_default;
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
    case RankLauncher::Plain:
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
