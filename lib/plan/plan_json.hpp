#pragma once
#include <nlohmann/json.hpp>

#include <functional>
#include "lib/plan/plan.hpp"

namespace ssim::plan {

// The plan as shown by `ssim run --dry-run --json`: per step its run directory, the
// command the local launcher would run, and the environment ssim adds.
nlohmann::json plan_to_json(const Plan& plan, const std::function<std::vector<std::string>(const Step&)>& command);

}  // namespace ssim::plan
