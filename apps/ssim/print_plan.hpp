#pragma once
#include <ostream>

#include "lib/launch/launcher.hpp"
#include "lib/plan/plan.hpp"

namespace ssim::app {

// Human-readable plan for `ssim run --dry-run`.
void print_plan(std::ostream& out, const plan::Plan& plan, const launch::Launcher& launcher);

}  // namespace ssim::app
