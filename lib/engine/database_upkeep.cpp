#include "lib/engine/database_upkeep.hpp"

#include <algorithm>

#include "lib/engine/engine.hpp"
#include "lib/engine/stop.hpp"
#include "lib/orchestrator/database.hpp"
#include "lib/orchestrator/shard_samples.hpp"

namespace ssim::engine {

using state::Status;

// The watch's findings, in ssim.log and as events.
void DatabaseUpkeep::say(RunContext& run, const std::vector<Event>& found) {
  for (const auto& e : found) {
    if (e.kind == EventKind::Error)
      run.log.error("{}", e.text);
    else
      run.log.info("{}", e.text);
    run.emit(e);
  }
}

void DatabaseUpkeep::watch(RunContext& run) {
  auto found = watch_.look(*plan_.database, password_, run.m);
  if (!found.samples.empty()) orchestrator::append_samples(run.m.path, found.samples);
  say(run, found.said);
}

void DatabaseUpkeep::stop(RunContext& run) {
  if (plan_.database->external()) return;
  orchestrator::append_samples(run.m.path, watch_.sample(password_, run.m));  // the state it ends in
  if (plan_.database->persist) {
    run.log.info("database left running (persist: true) at {}", ssdb_);
    run.emit(text_event(EventKind::Info, "database left running at " + ssdb_ + " (persist: true); ssim stop ends it"));
    return;
  }
  std::vector<std::string> names;
  for (const auto& r : run.m.entities)
    if (is_database(r) && !state::is_terminal(r.status)) names.push_back(r.name);
  if (names.empty()) return;
  stop_databases(run.m, launcher_, names, kStopGrace, run.clock, db_);
  report_failed_snapshots(run);
  for (auto& r : run.m.entities) {
    if (!is_database(r) || std::find(names.begin(), names.end(), r.name) == names.end()) continue;
    if (snapshot_failed(r)) continue;  // left running, said above
    // A shard that shut down on request completed its job; it was not cancelled.
    if (r.status == Status::Cancelled && r.exit_code == 0) {
      r.status = Status::Completed;
      continue;
    }
    if (r.status == Status::Completed) continue;
    // It had to be signalled: the entities' outcome stands, the run is not failed for it.
    if (!state::is_terminal(r.status)) r.status = Status::Cancelled, r.end = run.clock.now();
    r.reason = std::string(kStoppedAtEnd) + " (it did not shut down when asked; " +
               (r.signal ? "killed by signal " + std::to_string(*r.signal) : std::string("stopped")) + ")";
    run.log.warn("{}: {}", r.name, r.reason);
    run.emit(text_event(EventKind::Warning, "database " + r.name + " " + r.reason));
  }
  run.log.info("database stopped");
}

// A shard that could not save its snapshot is left running with the only copy of its
// data: said as an error, and the run's exit code is 3 (the environment failed).
void DatabaseUpkeep::report_failed_snapshots(RunContext& run) {
  for (const auto& r : run.m.entities) {
    if (!snapshot_failed(r)) continue;
    snapshots_failed_ = true;
    run.log.error("{}: {}", r.name, r.reason);
    run.emit(text_event(EventKind::Error, "database " + r.name + ": " + r.reason));
  }
}

}  // namespace ssim::engine
