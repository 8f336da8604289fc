#pragma once
// What `ssim run` prints when it ends: the status table, or for a big experiment on a
// terminal (more than kSummaryAbove entities) a summary a person can read at a glance:
// counts per ensemble, the failed ones with their reason and parameters, and where to
// look next (status --filter failed, report, and --resume after an interruption).
#include <ostream>
#include <string>

#include "lib/state/manifest.hpp"

namespace ssim::app {

inline constexpr int kSummaryAbove = 30;

// `file`: the experiment file as the user gave it, for the --resume pointer.
void print_run_end(std::ostream& out, const state::Manifest& m, const std::string& file, bool terminal);

}  // namespace ssim::app
