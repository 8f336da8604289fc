#pragma once
// `ssim status --summary`: counts per ensemble (the database apart), the slowest
// entities and the failed ones, instead of one row per entity.
#include <ostream>

#include "lib/state/manifest.hpp"
#include "lib/state/status_summary.hpp"

namespace ssim::app {

void print_status_summary(std::ostream& out, const state::StatusSummary& s, double now);
// --summary --sort FIELD: per ensemble (and the models), the first and the last entity
// in that order that have a value, with their parameters: the best and the worst when
// the order puts the better first (--sort -val_acc, --sort loss). Throws UsageError for
// a metric nobody reported.
void print_best_and_worst(std::ostream& out, const state::Manifest& m, const std::string& sort);

}  // namespace ssim::app
