// The engine's database phase: start the shards as launcher steps, wait for their
// address reports and an authenticated PING (forming the cluster when several), watch
// them while the entities run, and shut them down at the end.
#include <algorithm>
#include <cstdlib>

#include "lib/engine/engine.hpp"
#include "lib/engine/refresh.hpp"
#include "lib/engine/stop.hpp"
#include "lib/orchestrator/database.hpp"
#include "lib/orchestrator/shard_samples.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/errors.hpp"

namespace ssim::engine {

using state::Status;

namespace {
std::chrono::milliseconds database_timeout() {
  const char* s = std::getenv("SSIM_DB_TIMEOUT");
  const double seconds = s && *s ? std::atof(s) : 30.0;
  return std::chrono::milliseconds(static_cast<long>(seconds * 1000));
}
}  // namespace

void Engine::start_database() {
  const auto t0 = clock_->steady();
  password_ = orchestrator::ensure_password(plan_);
  m_.database_snapshot = plan_.database->snapshot;
  if (plan_.database->external()) {  // running already, and not ours to start or stop
    try {
      db_->check_external(plan_.database->address, password_, std::chrono::milliseconds(5000));
    } catch (const EnvironmentError& e) {
      log_->error("{}", e.what());
      progress_->finish();
      throw;
    }
    ssdb_ = plan_.database->address;
    orchestrator::record_ssdb(plan_, ssdb_);
    log_->info("using the external database at {}", ssdb_);
    emit(text_event(EventKind::Info, "using the database at " + ssdb_ + " (orchestrator.address)"));
    return;
  }
  if (!plan_.database->password)
    emit(text_event(EventKind::Warning,
                    "the database has no password (password: none); anyone who can reach it can use it"));
  std::vector<state::EntityRecord*> shards;
  for (auto& r : m_.entities)
    if (is_database(r)) shards.push_back(&r);
  // --resume of a persist: true experiment: the shards kept from the earlier run (still
  // running, see resume_manifest) are used as they are, data and all.
  const bool reused = std::all_of(shards.begin(), shards.end(), [](auto* r) { return r->status == Status::Running; });
  if (!reused) {
    orchestrator::write_shard_configs(plan_, password_);
    attempts_.start(ctx_, live_, saver_, shards);
    saver_.save(ctx_);
  }

  // Between tries: notice a shard that ended (bad config, port taken) and Ctrl-C.
  auto check = [&] {
    poll();
    for (auto* r : shards)
      if (state::is_terminal(r->status))
        throw EnvironmentError(
            "database " + r->name + " " + describe(*r) +
            (r->status == Status::Completed
                 ? " at once: " + plan_.database->binary + " (orchestrator.binary) is not a server that keeps running"
                 : "") +
            orchestrator::last_log_lines(r->run_dir, r->name, 5));
    const std::string sig = wait_for_signal(0);
    if (!sig.empty()) throw Interrupted{sig};
  };
  try {
    const auto addresses = db_->wait_until_ready(plan_, password_, database_timeout(), check);
    ssdb_ = orchestrator::ssdb_value(addresses);
    orchestrator::record_ssdb(plan_, ssdb_);
  } catch (const EnvironmentError& e) {
    log_->error("{}", e.what());
    stop_entities(m_, launcher_, {}, "the database did not come up", std::chrono::milliseconds(2000), *clock_, *db_);
    m_.finished = clock_->now();
    saver_.save(ctx_);
    progress_->finish();
    throw;
  }
  // How long the shards took to answer (not the wait below, which is ssim's own).
  const double ms = std::chrono::duration<double, std::milli>(clock_->steady() - t0).count();
  // They answer, so they run; their records say so once their keepers have (a keeper tells
  // ssim a job runs only after its first moments, ssim-supervise's keeper.cpp): looked at
  // until then, briefly, so that no shard is still "pending" to the rest of the run.
  const auto settled = clock_->steady() + std::chrono::seconds(2);
  poll();
  while (clock_->steady() < settled &&
         std::any_of(shards.begin(), shards.end(), [](auto* r) { return r->status == Status::Pending; })) {
    if (const std::string sig = wait_for_signal(5); !sig.empty()) throw Interrupted{sig};
    poll();
  }
  log_->info("database {} at {} in {:.0f} ms", reused ? "reused" : "ready", ssdb_, ms);
  Event ready = text_event(EventKind::DatabaseReady, "");
  ready.detail = ssdb_;
  ready.millis = ms;
  ready.reused = reused;
  emit(ready);
  saver_.save(ctx_);
}

}  // namespace ssim::engine
