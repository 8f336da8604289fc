#include "lib/engine/stop.hpp"

#include <signal.h>

#include <thread>

#include "launchers/local/proc.hpp"
#include "lib/engine/refresh.hpp"
#include "lib/orchestrator/database.hpp"
#include "lib/util/clock.hpp"

namespace ssim::engine {

using state::Status;

namespace {
bool selected(const std::vector<std::string>& names, const state::EntityRecord& e) {
  if (names.empty()) return true;
  for (const auto& n : names)
    if (n == e.name || n == e.ensemble) return true;
  return false;
}

std::vector<launchers::JobRef> live_jobs(const state::Manifest& m, const std::vector<std::string>& names) {
  std::vector<launchers::JobRef> refs;
  for (const auto& e : m.entities)
    if (selected(names, e) && !e.job_id.empty() && !state::is_terminal(e.status))
      refs.push_back({e.job_id, e.name, e.run_dir});
  return refs;
}
}  // namespace

int kill_experiment_processes(const std::string& id) {
  if (id.empty()) return 0;
  int killed = 0;
  // Two rounds: a dying parent may have forked a moment ago.
  for (int round = 0; round < 2; ++round) {
    for (int pid : launchers::processes_with_env("SSIM_EXPERIMENT_ID", id)) {
      if (::kill(pid, SIGKILL) == 0) ++killed;
    }
  }
  return killed;
}

void stop_entities(state::Manifest& m, launchers::Launcher& launcher,
                   const std::vector<std::string>& names, const std::string& reason,
                   std::chrono::milliseconds grace) {
  // Databases first get a clean SHUTDOWN NOSAVE over their authenticated connection.
  std::vector<std::string> database_dirs;
  for (const auto& e : m.entities)
    if (e.type == "database" && selected(names, e) && !state::is_terminal(e.status)) database_dirs.push_back(e.run_dir);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  auto wait = std::chrono::milliseconds(10);
  if (!database_dirs.empty()) {
    orchestrator::shutdown_shards(database_dirs, orchestrator::read_password(m.path));
    // A shard that shut down ends on its own (and so does whatever launched it: srun,
    // mpirun); signalling its launch command now would turn a clean end into a kill.
    while (std::chrono::steady_clock::now() < deadline) {
      refresh(m, launcher);
      bool all_ended = true;
      for (const auto& e : m.entities)
        if (e.type == "database" && selected(names, e) && !state::is_terminal(e.status)) all_ended = false;
      if (all_ended) break;
      std::this_thread::sleep_for(wait);  // polling the shards' state, bounded by the deadline
      wait = std::min(wait * 2, std::chrono::milliseconds(100));
    }
  }
  auto jobs = live_jobs(m, names);
  if (!jobs.empty()) {
    launcher.cancel(jobs, false);
    while (true) {
      refresh(m, launcher);
      jobs = live_jobs(m, names);
      if (jobs.empty() || std::chrono::steady_clock::now() >= deadline) break;
      std::this_thread::sleep_for(wait);  // polling the jobs' state, bounded by the deadline
      wait = std::min(wait * 2, std::chrono::milliseconds(100));
    }
    if (!jobs.empty()) {
      launcher.cancel(jobs, true);
      refresh(m, launcher);
    }
  }
  if (names.empty()) kill_experiment_processes(m.id);
  const double now = now_seconds();
  for (auto& e : m.entities) {
    if (!selected(names, e) || state::is_terminal(e.status)) continue;
    e.status = Status::Cancelled;
    e.reason = e.job_id.empty() ? reason + " before it started" : reason;
    if (e.end == 0) e.end = now;
  }
}

}  // namespace ssim::engine
