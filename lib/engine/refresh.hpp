#pragma once
#include <functional>
#include <string>
#include <vector>

#include "lib/launch/launcher.hpp"
#include "lib/state/manifest.hpp"

namespace ssim::engine {

// The launcher's reference to entity `e`'s job (from the manifest's spelling).
inline launch::JobRef job_of(const state::EntityRecord& e) {
  return {state::parse_job_id(e.job_id), e.name, e.run_dir};
}

// Asks the launcher, in one poll, about every entity that has a job and has not ended,
// and updates the records. Calls on_change(record, before) for each status change.
// Returns whether anything changed. `among` (when given): the indexes of the entities
// that may not have ended, the others are not looked at (the engine's live list).
// `judge`: whether an end concluded from a missing record (JobStatus::judged) is taken;
// a reader beside a live run leaves those to the run, which sees what the reader cannot
// (the job's supervisor, its children's exit statuses) and saves its verdict.
bool refresh(state::Manifest& m, launch::Launcher& launcher,
             const std::function<void(const state::EntityRecord&, state::Status)>& on_change = {},
             const std::vector<size_t>* among = nullptr, bool judge = true);

// A one-line description of how an entity ended, e.g. "failed: exit code 3".
std::string describe(const state::EntityRecord& r);

}  // namespace ssim::engine
