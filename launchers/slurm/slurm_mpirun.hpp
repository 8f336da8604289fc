#pragma once
// mpirun inside a Slurm allocation (RankContext::mpirun_nodes).
#include <string>
#include <vector>

#include "launchers/ranks/rank_command.hpp"

namespace ssim::launchers::slurm {

void slurm_mpirun_nodes(std::vector<std::string>& argv, const Placement& p, const RankContext& c,
                        const plan::Resources& res, plan::Env& env);

}  // namespace ssim::launchers::slurm
