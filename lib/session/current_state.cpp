#include "lib/session/current_state.hpp"

#include "lib/launch/registry.hpp"
#include "lib/engine/ended_with_job.hpp"
#include "lib/engine/refresh.hpp"
#include "lib/state/job_id.hpp"
#include "lib/util/clock.hpp"

#include <exception>

namespace ssim::session {

// One rule for who may write the manifest besides the engine: a reader that finds no run
// tracking the experiment, holds the lock, and saves only over the very version it read.
// The runner is looked for before the manifest is read: a run saves its last manifest
// before it lets go of the lock, so a reader that found none reads that last one, and a
// reader that found one never guesses "not started" from a manifest a moment old.
CurrentState current_state(const std::string& path) {
  CurrentState s;
  s.runner = state::RunLock::holder(path);
  const std::string version = state::manifest_version(path);
  s.manifest = state::load_manifest(path);
  auto launcher = launch::make_launcher(s.manifest.launcher);
  // A run that holds the lock decides: a job it has not recorded an end for is what the
  // records say (running, pending), never "its supervisor is gone", which the run, the
  // one that started it, may know better a moment later.
  bool changed = engine::refresh(s.manifest, *launcher, {}, nullptr, !s.runner);
  // With none, what ran in an ended job ended with it.
  if (!s.runner) changed = engine::end_with_their_job(s.manifest, *launcher) || changed;
  // ssim run --batch: until its job starts, nothing runs the experiment, yet nothing
  // ended: the entities wait with the job.
  const state::EntityRecord* outer = nullptr;
  for (const auto& e : s.manifest.entities)
    if (e.type == state::EntityKind::Batch && !state::is_terminal(e.status)) outer = &e;
  if (!s.runner && !outer) {
    // The job of `ssim run --batch` ended before anything in it started (deleted while
    // queued, or it never ran): that is why, not a run that ended.
    const state::EntityRecord* job = nullptr;
    bool any_started = false;
    for (const auto& e : s.manifest.entities) {
      if (e.type == state::EntityKind::Batch)
        job = &e;
      else
        any_started = any_started || !e.job_id.empty();
    }
    const std::string why = job && !any_started ? "not started: its batch job " + job->extra().native_id +
                                                      " ended before any entity started"
                                                : "not started: ssim run ended before starting it";
    for (auto& e : s.manifest.entities) {
      if (e.job_id.empty() && !state::is_terminal(e.status)) {
        e.status = state::Status::Cancelled;
        e.reason = why;
        changed = true;
      }
    }
    if (changed) {
      // Kept for the next reader when it can be; a reader never fails because the disk
      // is full or the folder read-only: what it reports is in memory.
      try {
        if (auto lock = state::RunLock::try_acquire(path, "status"))
          if (state::manifest_version(path) == version) state::save_manifest(s.manifest);
      } catch (const std::exception&) {
      }
    }
  }
  if (outer && !s.runner) {
    const std::string why =
        "waiting for batch job " +
        (outer->extra().native_id.empty() ? state::parse_job_id(outer->job_id).label() : outer->extra().native_id);
    for (auto& e : s.manifest.entities)
      if (e.type != state::EntityKind::Batch && e.job_id.empty() && e.status == state::Status::New) {
        e.status = state::Status::Pending;  // shown, not saved: the job's own run starts from new
        e.reason = why;
      }
  }
  s.all_ended = true;
  for (const auto& e : s.manifest.entities) s.all_ended = s.all_ended && state::is_terminal(e.status);
  return s;
}

}  // namespace ssim::session
