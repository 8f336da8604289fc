#pragma once
// The database while the entities run and when they have ended: watched (database_watch.hpp),
// its findings said, and at the end sampled and shut down (left running with `persist:
// true`), a shard that could not save its snapshot said as an error.
#include <string>
#include <vector>

#include "lib/engine/database_control.hpp"
#include "lib/engine/database_watch.hpp"
#include "lib/engine/run_context.hpp"
#include "lib/launch/launcher.hpp"

namespace ssim::engine {

class DatabaseUpkeep {
 public:
  // `ssdb`, `password`: the database's address and password, once it runs.
  DatabaseUpkeep(const plan::Plan& plan, launch::Launcher& launcher, DatabaseControl& db, const Clock& clock,
                 const std::string& ssdb, const std::string& password)
      : plan_(plan), launcher_(launcher), db_(db), watch_(db, clock), ssdb_(ssdb), password_(password) {}

  void watch(RunContext& run);
  void stop(RunContext& run);
  // Shards left running because their snapshot failed: said as errors.
  void report_failed_snapshots(RunContext& run);
  // A snapshot failed, or the external database (orchestrator.address) was lost for good.
  bool environment_failed() const { return snapshots_failed_ || watch_.external_lost(); }

 private:
  void say(RunContext& run, const std::vector<Event>& found);

  const plan::Plan& plan_;
  launch::Launcher& launcher_;
  DatabaseControl& db_;
  DatabaseWatch watch_;
  const std::string& ssdb_;
  const std::string& password_;
  bool snapshots_failed_ = false;
};

}  // namespace ssim::engine
