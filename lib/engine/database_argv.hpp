#pragma once
// The command line of a database shard, the same for a run and for what --dry-run
// prints: the experiment's setup lines, the launcher's step, `ssim _database`, and the
// server inside orchestrator.container when there is one.
#include <string>
#include <vector>

#include "lib/launch/launcher.hpp"
#include "lib/orchestrator/database.hpp"

namespace ssim::engine {

std::vector<std::string> database_argv(const plan::Plan& plan, const launch::Launcher& launcher, int index,
                                       const orchestrator::Shard& shard);

}  // namespace ssim::engine
