#pragma once
// What a finished run amounts to: its exit code (docs/cli.md) and the counts the progress
// display shows.
#include "lib/engine/progress.hpp"
#include "lib/state/manifest.hpp"
#include "lib/state/status_summary.hpp"

namespace ssim::engine {

// 0 all completed; 1 something failed or was cancelled; 3 the environment failed
// (`environment_failed`: a start, the database, a snapshot; or a job the scheduler can
// never run or refused). A persistent database left running, one ssim had to kill at
// the end, and the outer batch job count for nothing.
int run_exit_code(const state::Manifest& m, bool environment_failed);

// Every entity but the database by status, and each ensemble's members ended of total.
Tally tally_of(const state::Manifest& m);
// The same from the summary made of it (one walk over the records for both).
Tally tally_of(const state::StatusSummary& s);

}  // namespace ssim::engine
