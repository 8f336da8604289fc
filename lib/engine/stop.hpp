#pragma once
#include <chrono>
#include <string>
#include <vector>

#include "lib/engine/database_control.hpp"
#include "lib/launch/launcher.hpp"
#include "lib/state/manifest.hpp"
#include "lib/util/clock.hpp"

namespace ssim::engine {

// How long entities are given to end after SIGTERM (and shards after SHUTDOWN).
inline constexpr std::chrono::milliseconds kStopGrace{3000};

// The reason of a shard whose snapshot could not be written: it is left running, since
// it holds the only copy of its data, and says so (docs/cli.md, ssim stop).
inline constexpr const char* kSnapshotFailed = "its snapshot could not be saved";
bool snapshot_failed(const state::EntityRecord& e);

// Stops the named entities (all when `names` is empty), the database last: asks their
// jobs to end, waits up to `grace` for them to do so, kills what is left, and records
// them cancelled with `reason` (those that had already ended keep their outcome). Entities not started yet are
// cancelled too. When stopping everything, also sweeps what the experiment left (Launcher::sweep), so nothing of it
// survives. `own_job` false: the row of the job this run is inside (`ssim run --batch`) is
// left alone, for the scheduler's word on how it ended (an outside scancel or qdel).
void stop_entities(state::Manifest& m, launch::Launcher& launcher, const std::vector<std::string>& names,
                   const std::string& reason, std::chrono::milliseconds grace = kStopGrace,
                   const Clock& clock = real_clock(), DatabaseControl& database = network_database_control(),
                   bool own_job = true);

// Ends what the (non-database) entities detached from themselves (Launcher::end_detached).
void end_detached(const state::Manifest& m, launch::Launcher& launcher);

// Ends database shards: SHUTDOWN SAVE (NOSAVE without database_snapshot), up to `grace`
// for them to end, then (or at once when none answered) SIGTERM and SIGKILL after a short
// grace. A shard whose snapshot fails is not signalled: it keeps running with
// kSnapshotFailed in its reason.
void stop_databases(state::Manifest& m, launch::Launcher& launcher, const std::vector<std::string>& names,
                    std::chrono::milliseconds grace, const Clock& clock = real_clock(),
                    DatabaseControl& database = network_database_control());

}  // namespace ssim::engine
