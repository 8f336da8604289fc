// ssim stop's algorithm: ask the process that runs the experiment to stop what is
// named (it would otherwise start pending members again), signal it to stop everything,
// and stop here what nobody tracks any more.
#include "lib/session/stop.hpp"

#include <signal.h>
#include <unistd.h>

#include <thread>

#include "lib/launch/registry.hpp"
#include "lib/engine/stop.hpp"
#include "lib/session/current_state.hpp"
#include "lib/session/entity_names.hpp"
#include "lib/state/lock.hpp"
#include "lib/state/control_request.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/errors.hpp"
#include "lib/util/proc_stat.hpp"
#include "lib/util/processes.hpp"

namespace ssim::session {

namespace {

// Asks the live ssim run (or monitor) to stop everything itself, and waits for it.
// Returns false when it could not be asked here (another host, or not the recorded process).
bool signal_runner(const std::string& path, const state::LockHolder& runner) {
  // The lock is held, so its holder lives, but it may be on another host, or a process
  // that inherited the lock; and the lock file's text is anyone's to write: signal only the
  // recorded process, confirmed by the kernel to hold the lock file open.
  if (runner.host != host_name() || !state::RunLock::confirmed(path, runner)) return false;
  sigval mark{};
  mark.sival_int = state::kStopSignalValue;  // "stopped by ssim stop", not "interrupted by SIGTERM"
  ::sigqueue(runner.pid, SIGTERM, mark);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (state::RunLock::holder(path) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // waiting for the lock to drop
  return true;
}

// Through the experiment directory (control_request.hpp): the runner, on this host or
// another, stops the entities itself, so it cannot start them again. True once it did.
bool ask_runner(const std::string& path, const std::vector<std::string>& names, std::chrono::seconds patience) {
  const std::string id = state::post_request(path, state::RequestKind::Stop, names);
  const auto deadline = std::chrono::steady_clock::now() + patience;
  while (std::chrono::steady_clock::now() < deadline) {
    const bool runner = state::RunLock::holder(path).has_value();
    if (!runner) {
      state::acknowledge_request(path, state::RequestKind::Stop, id);  // nobody left to act on it: stopped here
      return names.empty();
    }
    if (!state::request_pending(path, state::RequestKind::Stop, id) && !names.empty()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // waiting for the runner, bounded
  }
  state::acknowledge_request(path, state::RequestKind::Stop, id);
  return false;
}

// How long a runner on another host gets to act on a request (it looks every tick).
constexpr std::chrono::seconds kRunnerPatience{30};

}  // namespace

state::Manifest stop(const std::string& path, const std::vector<std::string>& names,
                     const std::function<void(const std::string&)>& notes, bool save_database) {
  auto m = state::load_manifest(path);
  refuse_unknown_names(m, names);
  auto runner = state::RunLock::holder(path);
  bool cancel_enclosing_job = false;
  const std::string runner_host = runner ? runner->host : "";
  if (runner) {
    // Everything, on this host: a signal, as Ctrl-C would. Named entities, or a runner
    // on another host (a login node looking into a job): a request it acts on.
    const bool done = names.empty() && signal_runner(path, *runner);
    if (!done && !ask_runner(path, names, kRunnerPatience)) {
      if (!state::RunLock::holder(path)) {
        // It ended meanwhile: what is left is stopped here.
      } else if (names.empty() && !m.allocation_job.empty() && !m.allocation_owned && runner->host != host_name()) {
        cancel_enclosing_job = true;  // the job it runs in goes, and everything in it
      } else {
        throw EnvironmentError("the ssim run of " + m.experiment + " (pid " + std::to_string(runner->pid) + " on " +
                               runner->host + ") did not act on the stop request within " +
                               std::to_string(kRunnerPatience.count()) + " s; run ssim stop on " + runner->host);
      }
    }
    runner = state::RunLock::holder(path);
  }
  CurrentState s = current_state(path);
  auto launcher = launch::make_launcher(s.manifest.launcher);
  const bool snapshot = s.manifest.database_snapshot;
  s.manifest.database_snapshot = snapshot && save_database;  // --no-save: this stop only
  engine::stop_entities(s.manifest, *launcher, names, "stopped by ssim stop");
  s.manifest.database_snapshot = snapshot;
  if (cancel_enclosing_job) {
    if (notes)
      notes("the ssim run on " + runner_host + " did not answer; cancelling job " + s.manifest.allocation_job +
            " it runs in");
    if (auto* allocation = launcher->allocation()) allocation->release(s.manifest.allocation_job);
  }
  if (names.empty() && s.manifest.allocation_owned && !s.manifest.allocation_job.empty()) {
    // The allocation ssim requested for `allocation:` goes too.
    if (auto* allocation = launcher->allocation()) allocation->release(s.manifest.allocation_job);
  }
  if (!runner) {
    if (auto lock = state::RunLock::try_acquire(path, "stop")) {
      if (names.empty() && s.manifest.finished == 0) s.manifest.finished = now_seconds();
      state::save_manifest(s.manifest);
    }
  }
  for (const auto& e : s.manifest.entities)
    if (engine::snapshot_failed(e)) throw EnvironmentError("database " + e.name + ": " + e.reason);
  return std::move(s.manifest);
}

}  // namespace ssim::session
