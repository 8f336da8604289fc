#pragma once
// What a failed entity itself said, in one place for the note, `last_error`, the report,
// the run's summary and the dashboard: the setup line that failed (before its program
// ran), else the rank that failed first among several (lib/state/rank_ends.hpp), else
// the program's own last lines, not its MPI launcher's banner about them.
#include <string>

namespace ssim::state {

// The last `lines` lines that say why the entity in `run_dir` (named `name`) failed; ""
// when it said nothing.
std::string entity_last_error(const std::string& run_dir, const std::string& name, int lines);

}  // namespace ssim::state
