#pragma once
// "Which rank am I": the one answer for ssim's rank wrapper, the C, C++ and Fortran
// clients' metrics, and (the same table, tests/fixtures/rank-env-cases.json) the Python
// package. ssim sets RANK, WORLD_SIZE, LOCAL_RANK and LOCAL_WORLD_SIZE for every rank
// before the program starts (docs/distributed.md), so those come first; without them
// (an entity with `run: {rank_env: false}`, or a program started by hand) the rank
// launcher's own variables answer: Open MPI, PMIx, MPICH/Hydra and Cray PALS (PMI_*,
// PALS_*), Slurm's srun, IBM's jsrun, Cray's aprun.
#include <functional>
#include <string>

namespace ssim {

struct RankInfo {
  int rank = 0;
  int size = 1;
  int local_rank = 0;
  int local_size = 1;
  std::string source;  // the variable the rank came from, "" when alone
};

using EnvLookup = std::function<const char*(const char*)>;

// From the environment `env` reads (getenv by default).
RankInfo rank_info(const EnvLookup& env = {});

// What the rank launcher alone says, never RANK, WORLD_SIZE, LOCAL_RANK or
// LOCAL_WORLD_SIZE: the rank wrapper's question, in an environment where those may be a
// shell's leftovers (a notebook's local test, ssim started inside another DDP job).
RankInfo launcher_rank_info(const EnvLookup& env = {});

// How many tasks of this step the rank launcher itself says run on this node; 0 when
// none says. ssim's own LOCAL_WORLD_SIZE is not asked: it may be a guess of one node.
int launcher_local_size(const EnvLookup& env = {});

// Slurm's "2(x3),1" (tasks on each node, SLURM_STEP_TASKS_PER_NODE) at node `node`; 0
// when the text or the node is out of range.
int slurm_tasks_on_node(const std::string& per_node, int node);

}  // namespace ssim
