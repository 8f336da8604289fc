#pragma once
// The database while the entities run (engine_database.cpp starts and stops it): a shard
// that stops answering is said once, and again when it answers; one that ended is said
// once; an external database (orchestrator.address) that stops answering makes the run's
// exit code 3; the shards' counters are sampled every 5 s. The watch owns when to look and
// what was said already; what it finds comes back as data (events to say, samples to
// keep), which the engine logs, emits and appends.
#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/engine/database_control.hpp"
#include "lib/engine/event.hpp"
#include "lib/plan/plan.hpp"
#include "lib/state/manifest.hpp"
#include "lib/util/clock.hpp"

namespace ssim::engine {

class DatabaseWatch {
 public:
  DatabaseWatch(DatabaseControl& db, const Clock& clock) : db_(db), clock_(clock) {}

  struct Findings {
    std::vector<Event> said;              // Error (lost, silent) or Info (answers again)
    std::vector<nlohmann::json> samples;  // for orchestrator::append_samples
  };
  // One look; cheap between its times (pings every 2 s, samples every 5 s).
  Findings look(const plan::Database& spec, const std::string& password, const state::Manifest& m);
  // The running shards' counters now (the state they end in).
  std::vector<nlohmann::json> sample(const std::string& password, const state::Manifest& m);
  bool external_lost() const { return external_lost_; }

 private:
  void look_external(const plan::Database& spec, const std::string& password, Findings& out);
  void look_at_shards(const std::string& password, const state::Manifest& m, Findings& out);

  DatabaseControl& db_;
  const Clock& clock_;
  std::chrono::steady_clock::time_point next_ping_{};
  std::chrono::steady_clock::time_point next_sample_{};
  bool silent_ = false;         // the last ping found a shard (or the external one) silent
  bool lost_reported_ = false;  // a shard ended: said once, nothing more to watch
  bool external_lost_ = false;  // the external database stopped answering during the run
};

}  // namespace ssim::engine
