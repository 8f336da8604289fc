#pragma once
// `ssim status --summary`: counts per ensemble (the database apart), the slowest
// entities and the failed ones, instead of one row per entity.
#include <ostream>
#include <string>

#include "lib/state/manifest.hpp"

namespace ssim::app {

void print_status_summary(std::ostream& out, const state::Manifest& m, double now);
// The last line of a run: "6 completed, 1 failed, 1 cancelled in 30.9 s" (entities only).
std::string outcome_line(const state::Manifest& m, double seconds);

}  // namespace ssim::app
