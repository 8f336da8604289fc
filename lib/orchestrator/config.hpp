#pragma once
#include <string>

#include "lib/plan/plan.hpp"

namespace ssim::orchestrator {

// The server configuration of one shard: configs/redis.conf with its @TAGS@ filled in,
// then the experiment's orchestrator.config lines.
std::string render_config(const plan::Plan& plan, int shard, const std::string& shard_dir, const std::string& password);

}  // namespace ssim::orchestrator
