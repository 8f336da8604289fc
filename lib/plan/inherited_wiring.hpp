#pragma once
// Rank wiring that ssim's own environment already held (a notebook's local test, a
// ~/.bashrc with the PyTorch tutorial's MASTER_ADDR/MASTER_PORT, ssim started inside
// another DDP job): ssim's wiring replaces it for every entity that has wiring on, and
// `ssim run` says so once (docs/distributed.md).
#include <functional>
#include <string>
#include <vector>

#include "lib/plan/plan.hpp"

namespace ssim::plan {

// The names of RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR and
// MASTER_PORT that `getenv` finds set and that a step of `p` with rank_env on replaces
// (a step whose own env: sets a name keeps its value and is not counted for it).
std::vector<std::string> replaced_wiring(const Plan& p, const std::function<const char*(const char*)>& getenv);

// The one line `ssim run` prints, "" when nothing was replaced.
std::string replaced_wiring_notice(const std::vector<std::string>& names);

}  // namespace ssim::plan
