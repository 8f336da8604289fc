#include "lib/engine/stop.hpp"

#include <vector>

#include "lib/engine/refresh.hpp"
#include "lib/orchestrator/database.hpp"
#include "lib/state/rank_ends.hpp"
#include "lib/util/clock.hpp"

namespace ssim::engine {

using state::Status;

namespace {
bool selected(const std::vector<std::string>& names, const state::EntityRecord& e) {
  if (names.empty()) return true;
  for (const auto& n : names)
    if (state::selects(n, e)) return true;
  return false;
}

// The row of the job this run is inside (`ssim run --batch`), left for the scheduler's
// word when `own_job` is false.
bool left_alone(const state::EntityRecord& e, bool own_job) { return !own_job && e.type == state::EntityKind::Batch; }

std::vector<launch::JobRef> live_jobs(const state::Manifest& m, const std::vector<std::string>& names, bool own_job) {
  std::vector<launch::JobRef> refs;
  for (const auto& e : m.entities)
    if (selected(names, e) && !left_alone(e, own_job) && !e.job_id.empty() && !state::is_terminal(e.status))
      refs.push_back(job_of(e));
  return refs;
}

// SIGTERM to the jobs, up to `deadline` for them to end, then SIGKILL.
void end_jobs(state::Manifest& m, launch::Launcher& launcher, const std::vector<std::string>& names, bool databases,
              std::chrono::steady_clock::time_point deadline, const Clock& clock, bool own_job = true) {
  auto live = [&] {
    std::vector<launch::JobRef> refs;
    for (const auto& r : live_jobs(m, names, own_job))
      if (is_database(*m.find(r.name)) == databases) refs.push_back(r);
    return refs;
  };
  auto jobs = live();
  if (jobs.empty()) return;
  launcher.cancel(jobs, false);
  auto wait = std::chrono::milliseconds(10);
  while (true) {
    refresh(m, launcher);
    jobs = live();
    if (jobs.empty() || clock.steady() >= deadline) break;
    clock.sleep(wait);  // polling the jobs' state, bounded by the deadline
    wait = std::min(wait * 2, std::chrono::milliseconds(100));
  }
  if (!jobs.empty()) {
    launcher.cancel(jobs, true);
    refresh(m, launcher);
  }
}

}  // namespace

bool snapshot_failed(const state::EntityRecord& e) {
  return is_database(e) && !state::is_terminal(e.status) && e.reason.rfind(kSnapshotFailed, 0) == 0;
}

void stop_entities(state::Manifest& m, launch::Launcher& launcher, const std::vector<std::string>& names,
                   const std::string& reason, std::chrono::milliseconds grace, const Clock& clock,
                   DatabaseControl& database, bool own_job) {
  const double asked = clock.now();
  // One stop, one reason: what this stop ends reads the same whether it ended during the
  // grace period (the launcher's own words) or was still running after it.
  std::vector<char> live(m.entities.size(), 0);  // by index: the list does not change during a stop
  for (size_t i = 0; i < m.entities.size(); ++i)
    live[i] = selected(names, m.entities[i]) && !left_alone(m.entities[i], own_job) &&
              !state::is_terminal(m.entities[i].status);
  // The documented order (docs/cli.md, ssim stop): the entities first (they may still write to the database), the
  // database last.
  end_jobs(m, launcher, names, false, clock.steady() + grace, clock, own_job);
  if (names.empty()) end_detached(m, launcher);
  stop_databases(m, launcher, names, grace, clock, database);
  bool kept = false;
  for (const auto& e : m.entities) kept = kept || snapshot_failed(e);
  if (names.empty() && !kept) launcher.sweep(m.id);  // never near a shard that holds unsaved data
  const double now = clock.now();
  for (size_t i = 0; i < m.entities.size(); ++i) {
    auto& e = m.entities[i];
    if (!selected(names, e) || left_alone(e, own_job) || snapshot_failed(e)) continue;
    const bool ended_by_this_stop = e.status == Status::Cancelled && i < live.size() && live[i];
    if (state::is_terminal(e.status) && !ended_by_this_stop) continue;
    if (ended_by_this_stop) {
      // A rank had failed before the stop came (its MPI launcher still tearing the rest
      // down): the entity failed on its own, and says so.
      if (const auto failed = state::failed_before(state::read_rank_ends(e.run_dir), asked)) {
        e.status = Status::Failed;
        e.exit_code = failed->signal ? std::nullopt : std::optional<int>(failed->exit_code);
        e.signal = failed->signal ? std::optional<int>(failed->signal) : std::nullopt;
        e.reason = "rank " + std::to_string(failed->rank) + " had failed before the stop";  // its words: last_error
        continue;
      }
    }
    e.status = Status::Cancelled;
    e.reason = e.job_id.empty() ? reason + " before it started" : reason;
    if (e.end == 0) e.end = now;
  }
}

void end_detached(const state::Manifest& m, launch::Launcher& launcher) {
  // In slices: a reference to every job of a million members at once was ssim's peak
  // memory (a quarter of a gigabyte, for a list read once).
  constexpr size_t kSlice = 4096;
  std::vector<launch::JobRef> jobs;
  jobs.reserve(std::min(kSlice, m.entities.size()));
  for (const auto& e : m.entities) {
    if (e.job_id.empty() || is_database(e) || e.type == state::EntityKind::Batch) continue;
    jobs.push_back(job_of(e));
    if (jobs.size() == kSlice) {
      launcher.end_detached(jobs);
      jobs.clear();
    }
  }
  if (!jobs.empty()) launcher.end_detached(jobs);
}

void stop_databases(state::Manifest& m, launch::Launcher& launcher, const std::vector<std::string>& names,
                    std::chrono::milliseconds grace, const Clock& clock, DatabaseControl& database) {
  // A clean SHUTDOWN NOSAVE over the authenticated connection first (bounded: a stopped
  // server does not answer); a shard that shut down ends on its own, and so does
  // whatever launched it (srun, mpirun): signalling that now would turn a clean end
  // into a kill.
  std::vector<std::string> dirs;
  for (const auto& e : m.entities)
    if (is_database(e) && selected(names, e) && !state::is_terminal(e.status)) dirs.push_back(e.run_dir);
  if (dirs.empty()) return;
  const auto deadline = clock.steady() + grace;
  const auto outcome = database.shutdown(dirs, orchestrator::read_password(m.path), m.database_snapshot);
  // What is to end: the selected shards, but those that could not save (left running).
  std::vector<std::string> ending;
  for (auto& e : m.entities) {
    if (!is_database(e) || !selected(names, e) || state::is_terminal(e.status)) continue;
    const auto failed = outcome.save_failed.find(e.run_dir);
    if (failed == outcome.save_failed.end()) {
      ending.push_back(e.name);
      if (e.reason.rfind(kSnapshotFailed, 0) == 0) e.reason.clear();  // an earlier stop's: this one saved
      continue;
    }
    e.reason = std::string(kSnapshotFailed) + " (" + failed->second + "); it still runs and holds the only copy of " +
               "its data: make room (or fix permissions) in " + e.run_dir + ", then ssim stop " + m.path +
               " again (ssim stop --no-save ends it without saving)";
  }
  if (ending.empty()) return;
  if (outcome.all_answered) {
    auto wait = std::chrono::milliseconds(10);
    while (clock.steady() < deadline) {
      refresh(m, launcher);
      bool all_ended = true;
      for (const auto& name : ending) all_ended = all_ended && state::is_terminal(m.find(name)->status);
      if (all_ended) return;
      clock.sleep(wait);  // polling the shards' state, bounded by the deadline
      wait = std::min(wait * 2, std::chrono::milliseconds(100));
    }
  }
  // Not answering, or not ending: SIGTERM (with SIGCONT), a short grace, SIGKILL.
  end_jobs(m, launcher, ending, true, clock.steady() + std::min(grace, std::chrono::milliseconds(1500)), clock);
}

}  // namespace ssim::engine
