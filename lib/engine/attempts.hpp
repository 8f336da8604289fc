#pragma once
// Attempts: what each launch request holds (its command, environment, room on the node
// pool, devices, the database's address and the outcomes of what it waits for), one
// launcher call for every entity started in a pass, each start journalled before and
// after it (.ssim/starts), and failed entities with retries left made new again.
#include <functional>
#include <string>
#include <vector>

#include "lib/engine/live_index.hpp"
#include "lib/engine/manifest_saver.hpp"
#include "lib/engine/run_context.hpp"
#include "lib/engine/schedule.hpp"
#include "lib/launch/launcher.hpp"
#include "lib/state/start_journal.hpp"

namespace ssim::engine {

class Attempts {
 public:
  // `ssdb`, `password`: the database's address and password, once it runs (read at each start).
  Attempts(const plan::Plan& plan, launch::Launcher& launcher, const Schedule& schedule,
           const std::string& experiment_path, const std::string& ssdb, const std::string& password)
      : plan_(plan),
        launcher_(launcher),
        schedule_(schedule),
        journal_(experiment_path),
        ssdb_(ssdb),
        password_(password) {}

  // Starts `records` with one launcher call; they join `live`. A launcher that cannot
  // start them (disk full, ...) fails them, and environment_failed() says so.
  void start(RunContext& run, LiveIndex& live, ManifestSaver& saver, const std::vector<state::EntityRecord*>& records);
  // `retries: N`: failed entities among `live` that were not stopped by ssim
  // (`was_stopped`) go back to new after a short backoff. True when some did.
  bool retry_failed(RunContext& run, LiveIndex& live,
                    const std::function<bool(const state::EntityRecord&)>& was_stopped);
  // The nodes an entity is placed on (its grant), or this host on the local launcher;
  // "" when the scheduler decides.
  std::string where_it_runs(const state::EntityRecord& r) const;
  bool environment_failed() const { return environment_failed_; }

 private:
  launch::LaunchRequest request_for(const RunContext& run, const state::EntityRecord& r) const;
  void begin(const RunContext& run, state::EntityRecord& r) const;
  void tell_outcomes(const RunContext& run, const state::EntityRecord& r, plan::Env& env) const;

  const plan::Plan& plan_;
  launch::Launcher& launcher_;
  const Schedule& schedule_;
  state::StartJournal journal_;  // the experiment's .ssim/starts, open for the run
  const std::string& ssdb_;
  const std::string& password_;
  bool environment_failed_ = false;
};

}  // namespace ssim::engine
