#pragma once
// What `ssim run` prints when it ends: the status table, or for a big experiment (on a
// terminal more than kSummaryAbove entities, piped more than kListAbovePiped) a summary a
// person can read at a glance:
// counts per ensemble, the failed ones with their reason and parameters, and where to
// look next (status --filter failed, report, and --resume after an interruption).
#include <ostream>
#include <string>

#include "lib/state/manifest.hpp"

namespace ssim::app {

inline constexpr int kSummaryAbove = 30;
// Piped (a job's output file, a script), the table lists every row up to this many
// entities; past it, the summary too: a million rows (55 MB) is a list nobody reads, and
// `ssim status EXP --json` or `-o` gives them all.
inline constexpr int kListAbovePiped = 1000;

// `file`: the experiment file as the user gave it, for the --resume pointer.
void print_run_end(std::ostream& out, const state::Manifest& m, const std::string& file, bool terminal);
// Where the entities stand after a verb acted (ssim start, ssim stop): as a run's end
// prints them (the table, or past the same sizes the summary), or with `json` the
// document of ssim status --json.
void print_where_they_stand(std::ostream& out, const state::Manifest& m, bool json, bool terminal);

}  // namespace ssim::app
