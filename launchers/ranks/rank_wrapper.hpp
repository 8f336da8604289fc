#pragma once
// What each rank of a multi-rank (or MPI) step starts through: `ssim-supervise --rank`
// (apps/ssim-supervise/rank.cpp), which sets RANK, WORLD_SIZE, LOCAL_RANK,
// LOCAL_WORLD_SIZE, MASTER_ADDR and MASTER_PORT from the launcher's own variables and rank
// 0's address, gives the rank its own GPUs, and records how it ended. The same on every
// launcher: mpirun, mpiexec, srun, aprun, jsrun, here or inside a job.
#include <string>
#include <vector>

#include "lib/plan/plan.hpp"

namespace ssim::launchers {

struct RankAddress {
  bool loopback = false;  // every rank on this machine: rank 0 is 127.0.0.1
  std::string interface;  // orchestrator.interface, the rule the database's address follows
};

// `program` preceded by the wrapper and its options for `step`'s resources.
std::vector<std::string> through_rank_wrapper(const std::string& supervisor, const plan::Step& step,
                                              const RankAddress& where, std::vector<std::string> program);

}  // namespace ssim::launchers
