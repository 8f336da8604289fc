#pragma once
#include <string>

#include "lib/plan/plan.hpp"
#include "lib/spec/spec.hpp"

namespace ssim::app {

struct Loaded {
  spec::ExperimentSpec spec;
  plan::Plan plan;
};

// spec + plan for FILE, with the launcher resolved (--launcher overrides the file).
// Throws spec::SpecError for bad input.
Loaded load(const std::string& file, const std::string& launcher_override = "");

}  // namespace ssim::app
