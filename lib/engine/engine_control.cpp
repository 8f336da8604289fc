// Control from outside the run: `ssim stop` and `ssim start` requests (control_request.hpp),
// held entities, and SIGINT/SIGTERM.
#include "lib/engine/engine.hpp"
#include "lib/util/split.hpp"

#include <climits>

#include <chrono>
#include <nlohmann/json.hpp>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

#include <csignal>

#include "lib/engine/event_log.hpp"
#include "lib/plan/resources.hpp"
#include "lib/engine/failure_pointer.hpp"
#include "lib/engine/refresh.hpp"
#include "lib/state/start_journal.hpp"
#include "lib/state/control_request.hpp"
#include "lib/plan/resources.hpp"
#include "lib/engine/stop.hpp"
#include "lib/orchestrator/database.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/layout.hpp"
#include "lib/util/proc_stat.hpp"
#include "lib/util/self_exe.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/errors.hpp"

namespace ssim::engine {

using state::Status;

// `ssim stop` from another shell or host (control_request.hpp): named entities are stopped
// here, by the process that would otherwise start them; a request for everything ends
// the run as SIGTERM does. Returns true when the run must end.
bool Engine::handle_stop_requests() {
  const auto requests = control_.pending(state::RequestKind::Stop);
  bool everything = false;
  for (const auto& r : requests) {
    if (r.names.empty()) {
      everything = true;
      continue;  // acknowledged once everything is stopped
    }
    const std::string list = join(r.names, " ");
    log_->info("ssim stop from {}: stopping {}", r.host, list);
    control_.stopped(r.names);
    std::vector<std::pair<std::string, Status>> before;
    for (const auto& e : m_.entities) before.emplace_back(e.name, e.status);
    stop_entities(m_, launcher_, r.names, "stopped by ssim stop", kStopGrace, *clock_, *db_);
    for (size_t i = 0; i < before.size(); ++i) {
      auto& e = m_.entities[i];
      // An attempt that failed on its own as the stop came, with attempts left: the
      // stop ended the entity's retries, so it is cancelled, as it would have been a
      // moment later.
      const plan::Step* step = steps_.find(e.name);
      if (e.status == Status::Failed && !state::is_terminal(before[i].second) && step &&
          e.attempt <= step->program->retries) {
        e.status = Status::Cancelled;
        e.reason = "stopped by ssim stop (attempt " + std::to_string(e.attempt) + " had just failed: " + e.reason + ")";
      }
      if (e.status != before[i].second) emit(entity_event(e.name, to_string(e.type), e.status, e.exit_code, e.reason));
    }
    saver_.save(ctx_);
    control_.acknowledge(state::RequestKind::Stop, r.id);
  }
  if (!everything) return false;
  interrupted("ssim stop");
  for (const auto& r : requests)
    if (r.names.empty()) control_.acknowledge(state::RequestKind::Stop, r.id);
  return true;
}

bool Engine::handle_start_requests(const EngineHooks& hooks) {
  const auto requests = control_.pending(state::RequestKind::Start);
  for (const auto& r : requests) {
    log_->info("ssim start from {}: {}", r.host, join(r.names, " "));
    std::string refusal;
    try {
      refusal = start_entities(r.names, hooks);
    } catch (const std::exception& e) {
      refusal = e.what();
    }
    if (!refusal.empty()) log_->warn("ssim start refused: {}", refusal);
    saver_.save(ctx_);
    control_.acknowledge(state::RequestKind::Start, r.id, refusal);
  }
  return !requests.empty();
}

// Returns why nothing was started, or "" when every name was acted on.
std::string Engine::start_entities(const std::vector<std::string>& names, const EngineHooks& hooks) {
  StartDecision d = control_.start(names, m_, hooks.reload ? plan_.file : "");
  if (d.unknown_names && hooks.reload) {  // entities added to the file join the run
    added_plans_.push_back(hooks.reload());
    add_entities(added_plans_.back());
    d = control_.start(names, m_, plan_.file);
  }
  if (!d.refusal.empty()) return d.refusal;
  for (size_t i : d.release) {
    auto& e = m_.entities[i];
    e.held = false;
    e.reason.clear();
  }
  for (size_t i : d.again) {  // ended: it runs again, as a new attempt
    auto& e = m_.entities[i];
    e.extra_mut().earlier_attempts.push_back(state::attempt_record(e));
    e.status = Status::New;
    e.job_id.clear();
    e.pid = 0;
    e.reason.clear();
    e.retry_at = 0;
  }
  if (!d.again.empty()) live_.make_anew();  // they left the live list when they ended
  std::vector<size_t> started = d.release;
  started.insert(started.end(), d.again.begin(), d.again.end());
  std::sort(started.begin(), started.end());  // said in the file's order
  for (size_t i : started) {
    const auto& e = m_.entities[i];
    emit(entity_event(e.name, to_string(e.type), e.status, std::nullopt, "started by ssim start"));
  }
  return "";
}

// Entities in the file that the run does not know yet join it, held until asked for.
void Engine::add_entities(const plan::Plan& plan) {
  add_steps(plan);
  size_t added = 0;
  for (auto& r : new_manifest(plan, m_.id).entities) {
    if (m_.find(r.name)) continue;
    r.held = true;
    r.reason = kHeldReason;
    m_.entities.push_back(std::move(r));
    ++added;
  }
  if (added) emit(text_event(EventKind::Info, std::to_string(added) + " entities added from " + plan.file));
}

bool Engine::waits_on_held(const state::EntityRecord& r, int depth) const {
  if (r.held) return true;
  if (r.status != Status::New || depth > 64) return false;
  for (const auto* list : {&r.extra().after, &r.extra().after_any})
    for (const auto& a : *list)
      if (const auto* dep = m_.find(a); dep && waits_on_held(*dep, depth + 1)) return true;
  return false;
}

// The run ends with entities nobody asked for: they never started.
void Engine::cancel_held() {
  for (auto& e : m_.entities) {
    if (e.status != Status::New || is_database(e) || is_outer_batch(e)) continue;
    e.status = Status::Cancelled;
    e.reason = e.held ? "not started: held, and no ssim start asked for it" : "not started: waits on a held entity";
    e.held = false;
    e.end = clock_->now();
    emit(entity_event(e.name, to_string(e.type), e.status, std::nullopt, e.reason));
  }
}

// Inside the job of `ssim run --batch`: a SIGTERM once the job's wall time (batch.time) is
// spent is the scheduler ending the job at its limit (PBS writes "job killed: walltime 26
// exceeded limit 12" to the job's stderr, which ssim does not see). Slack: the job started
// before this run did (its setup lines first). "" when it is not that.
std::string Engine::wall_time_spent() const {
  if (!plan_.batch || plan_.batch->time.empty() || began_ <= 0) return "";
  const long limit = plan::time_seconds(plan_.batch->time);
  bool in_its_job = false;
  for (const auto& e : m_.entities) in_its_job = in_its_job || is_outer_batch(e);
  if (!in_its_job || limit <= 0) return "";
  const double slack = std::max(5.0, 0.05 * static_cast<double>(limit));
  if (clock_->now() - began_ < static_cast<double>(limit) - slack) return "";
  return "wall time exceeded (" + plan_.batch->time + "): the scheduler ended the job";
}

void Engine::interrupted(const std::string& why) {
  log_->warn("{} received: stopping every entity", why);
  emit(text_event(EventKind::Info, why + " received: stopping everything"));
  const double heard = clock_->now();
  const std::string spent = why == "SIGTERM" ? wall_time_spent() : "";
  if (!spent.empty()) log_->warn("{}", spent);
  stop_entities(m_, launcher_, {},
                !spent.empty()       ? spent
                : why == "ssim stop" ? "stopped by ssim stop"
                                     : "interrupted by " + why,
                kStopGrace, *clock_, *db_,
                /*own_job=*/why == "ssim stop" || !spent.empty());
  // What the wall time cut short did not finish: failed, so the run and ssim status say so.
  // The scheduler signals the job's whole session: a member may have ended by that same
  // SIGTERM (and been seen so) a moment before this run heard it.
  if (!spent.empty())
    for (auto& e : m_.entities) {
      if (is_database(e)) continue;
      const bool by_the_same_signal = state::is_terminal(e.status) && e.status != Status::Completed &&
                                      e.signal == SIGTERM && e.end >= heard - 5 && e.reason.rfind(spent, 0) != 0;
      if (by_the_same_signal) e.reason = spent;
      if ((e.status == Status::Cancelled && e.reason.rfind(spent, 0) == 0) || by_the_same_signal)
        e.status = Status::Failed;
    }
  for (auto& e : m_.entities) e.held = false;
  database_.report_failed_snapshots(ctx_);
  saver_.save(ctx_);
}

}  // namespace ssim::engine
