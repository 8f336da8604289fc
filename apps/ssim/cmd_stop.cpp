// ssim stop [EXP] [ENTITY ...]: stop the named entities, or everything, and leave no
// process of the experiment behind.
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include "apps/ssim/current_state.hpp"
#include "apps/ssim/experiment_ref.hpp"
#include "apps/ssim/status_table.hpp"
#include "apps/ssim/verbs.hpp"
#include "launchers/local/proc.hpp"
#include "launchers/registry.hpp"
#include "lib/engine/stop.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/errors.hpp"
#include "lib/util/proc_stat.hpp"

namespace ssim::app {

namespace {

// The first word names the experiment when it is a directory or file; otherwise all
// words are entity names in the experiment last run from here.
std::pair<std::string, std::vector<std::string>> split_args(const std::vector<std::string>& words) {
  std::error_code ec;
  if (!words.empty() && std::filesystem::exists(words[0], ec))
    return {resolve_experiment(words[0]), {words.begin() + 1, words.end()}};
  return {resolve_experiment(""), words};
}

// Asks the live ssim run (or monitor) to stop everything itself, and waits for it.
void stop_runner(const std::string& path, const state::LockHolder& runner) {
  // The lock is held, so its holder lives, but it may be on another host, or a process
  // that inherited the lock: signal only the recorded process, checked by start time.
  if (runner.host != host_name() ||
      !launchers::process_alive(runner.pid, runner.ticks) || runner.ticks.empty())
    return;
  ::kill(runner.pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (state::RunLock::holder(path) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // waiting for the lock to drop
}

}  // namespace

Action add_stop(CLI::App& app) {
  auto words = std::make_shared<std::vector<std::string>>();
  auto* cmd = app.add_subcommand("stop", "Stop an experiment's entities (all when none named)");
  cmd->add_option("EXP_AND_ENTITIES", *words, "[EXP] [ENTITY ...]");
  return [words] {
    auto [path, names] = split_args(*words);
    auto m = state::load_manifest(path);
    for (const auto& n : names) {
      bool known = false;
      for (const auto& e : m.entities) known = known || e.name == n || e.ensemble == n;
      if (!known) throw UsageError("no entity " + n + " in experiment " + m.experiment);
    }
    auto runner = state::RunLock::holder(path);
    if (runner && names.empty()) {
      stop_runner(path, *runner);
      runner = state::RunLock::holder(path);
    }
    CurrentState s = current_state(path);
    auto launcher = launchers::make_launcher(s.manifest.launcher);
    engine::stop_entities(s.manifest, *launcher, names, "stopped by ssim stop");
    if (names.empty() && s.manifest.allocation_owned && !s.manifest.allocation_job.empty()) {
      // The allocation ssim requested for `allocation:` goes too.
      launcher->release_allocation(s.manifest.allocation_job);
    }
    if (!runner) {
      if (auto lock = state::RunLock::try_acquire(path, "stop")) {
        if (names.empty() && s.manifest.finished == 0) s.manifest.finished = now_seconds();
        state::save_manifest(s.manifest);
      }
    }
    print_status_table(std::cout, s.manifest);
    return 0;
  };
}

}  // namespace ssim::app
