#pragma once
// `ssim status --summary`: counts per ensemble (the database apart), the slowest
// entities and the failed ones, instead of one row per entity.
#include <ostream>

#include "lib/state/manifest.hpp"

namespace ssim::app {

void print_status_summary(std::ostream& out, const state::Manifest& m, double now);


}  // namespace ssim::app
