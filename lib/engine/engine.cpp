#include "lib/engine/engine.hpp"
#include "lib/util/split.hpp"

#include <climits>

#include <chrono>
#include <nlohmann/json.hpp>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

#include "lib/engine/event_log.hpp"
#include "lib/engine/failure_pointer.hpp"
#include "lib/engine/refresh.hpp"
#include "lib/engine/run_outcome.hpp"
#include "lib/state/start_journal.hpp"
#include "lib/state/control_request.hpp"
#include "lib/plan/resources.hpp"
#include "lib/engine/stop.hpp"
#include "lib/launch/container_failure.hpp"
#include "lib/state/entity_error.hpp"
#include "lib/orchestrator/database.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/layout.hpp"
#include "lib/util/proc_stat.hpp"
#include "lib/util/self_exe.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/errors.hpp"

namespace ssim::engine {

using state::Status;

namespace {
// Ended, and nothing in this run starts it again by itself: not a failure with retries
// left (ssim start of an ended entity makes the live index anew instead).
bool ended_for_good(const state::EntityRecord& r, const StepsByName& steps) {
  if (!state::is_terminal(r.status)) return false;
  if (r.status != Status::Failed) return true;
  const plan::Step* step = steps.find(r.name);
  return !step || r.attempt > step->program->retries;
}
}  // namespace

Engine::Engine(const plan::Plan& plan, state::Manifest& manifest, launch::Launcher& launcher, Progress& progress,
               std::shared_ptr<spdlog::logger> log, int signal_fd, EngineSeams seams)
    : plan_(plan),
      m_(manifest),
      launcher_(launcher),
      events_(manifest.path),
      progress_(&progress),
      log_(std::move(log)),
      clock_(seams.clock ? seams.clock : &real_clock()),
      own_waiter_(seams.waiter ? nullptr : std::make_unique<SignalWaiter>(signal_fd, launcher)),
      waiter_(seams.waiter ? seams.waiter : own_waiter_.get()),
      db_(seams.database ? seams.database : &network_database_control()),
      live_([this](const state::EntityRecord& r) { return ended_for_good(r, steps_); }),
      control_(manifest.path, *clock_),
      ctx_{m_,
           steps_,
           *clock_,
           *log_,
           [this](const Event& e) { emit(e); },
           [this](const state::EntityRecord& e) {
             const launch::JobRef ref = job_of(e);
             launcher_.cancel(std::span<const launch::JobRef>(&ref, 1), false);
           }} {
  add_steps(plan_);
  if (auto* scheduling = launcher_.scheduling()) {
    scheduling->set_log([log = log_](const std::string& line) { log->warn("{}", line); });
    scheduling->set_notes([log = log_](const std::string& line) { log->info("{}", line); });
  }
}

// Steps join: by name, and with what each packed one takes from the node pool.
void Engine::add_steps(const plan::Plan& plan) {
  for (const auto& s : plan.steps) steps_.add(s);
  bool packs = false;
  for (const auto& s : plan.steps) packs = packs || launcher_.packs(s);
  if (packs && schedule_.pool().empty()) schedule_.set_pool(launch::NodePool(launcher_.pool(plan)));
  for (const auto& s : plan.steps)
    if (const std::string note = schedule_.add_step(s, launcher_.packs(s)); !note.empty()) log_->info("{}", note);
}

void Engine::emit(const Event& e) {
  events_.append(e);
  progress_->event(e);
}

// What may start is decided by the Schedule (schedule.hpp); here it is done: cancelled
// entities are recorded and said, the others started, and waiting gangs get their note.
bool Engine::start_ready() {
  bool changed = false;
  // experiment.max_running: the entities started and not yet ended count against it.
  int running = 0;
  if (plan_.max_running > 0)
    for (size_t i : live_.started())
      if (const auto& r = m_.entities[i];
          !is_database(r) && !is_outer_batch(r) && (r.status == Status::Pending || r.status == Status::Running))
        ++running;
  throttled_ = throttled_by_room_ = false;
  while (true) {  // a cancellation can make a later entity cancellable, or startable
    const Pass pass = schedule_.next(m_, clock_->now(), plan_.max_running, running, live_.waiting());
    throttled_ = throttled_ || pass.throttled;
    throttled_by_room_ = throttled_by_room_ || pass.throttled_by_room;
    for (const auto& [i, why] : pass.wait) {
      auto& r = m_.entities[i];
      if (r.reason == why) continue;
      r.reason = why;
      ctx_.dirty = true;
    }
    for (const auto& [i, why] : pass.cancel) {
      auto& r = m_.entities[i];
      r.status = Status::Cancelled;
      r.reason = why;
      r.end = clock_->now();
      emit(entity_event(r.name, to_string(r.type), r.status, std::nullopt, r.reason));
      log_->info("{} cancelled: {}", r.name, r.reason);
    }
    if (!pass.start.empty()) {
      std::vector<state::EntityRecord*> to_start;
      for (size_t i : pass.start) {
        auto& r = m_.entities[i];
        if (r.reason.rfind("waiting ", 0) == 0) r.reason.clear();  // a gang's note: it starts now
        to_start.push_back(&r);
      }
      running += static_cast<int>(to_start.size());
      attempts_.start(ctx_, live_, saver_, to_start);
    }
    if (pass.empty()) break;
    changed = true;
  }
  return changed;
}

namespace {
// A container that never started its program: the runtime's own words are the note.
void note_container_start(state::EntityRecord& r, const plan::Step* step) {
  if (!step || !step->program->container || !r.exit_code) return;
  if (const auto why = launch::container_start_failure(step->program->container->runtime, r.exit_code.value_or(-1),
                                                       state::entity_last_error(r.run_dir, r.name, 3)))
    r.reason = *why;
}
}  // namespace

bool Engine::poll() {
  ++polls_;
  live_.update(m_);  // also when called outside the run's loop (while the database starts)
  std::vector<std::string> ended_now;
  const bool changed = refresh(
      m_, launcher_,
      [&](const state::EntityRecord& ended, Status before) {
        if (state::is_terminal(ended.status)) ended_now.push_back(ended.name);
        if (ended.status == Status::Failed) {
          note_container_start(*m_.find(ended.name), steps_.find(ended.name));
        }
        goals_.settle(*m_.find(ended.name));
        rank_stops_.settle(*m_.find(ended.name));
        const state::EntityRecord& r = ended;
        metrics_.ended(ctx_, r);
        log_->info("{}: {} -> {}{}", r.name, to_string(before), to_string(r.status),
                   r.reason.empty() ? "" : " (" + r.reason + ")");
        if (r.status == Status::Running && before == Status::Pending) return;  // too chatty
        emit(entity_event(r.name, to_string(r.type), r.status, r.exit_code, r.reason,
                          r.status == Status::Failed ? failure_pointer(r, plan_.path) : ""));
      },
      &live_.started());
  const bool retried =
      attempts_.retry_failed(ctx_, live_, [this](const state::EntityRecord& r) { return control_.was_stopped(r); });
  nodes_.release_room(m_);
  const bool freed = !ended_now.empty() && nodes_.take_freed(ctx_, ended_now);
  const bool gangs = !ended_now.empty() && end_gangs_of_failed(ended_now);
  return nodes_.retire_lost(ctx_) || retried || changed || freed || gangs;
}

std::string Engine::wait_for_signal(int timeout_ms) {
  log_->flush();  // what this tick logged (lines are not flushed one by one in the loop)
  // Also woken when a supervisor says a job ended, so its CPUs go to the next at once.
  const std::string sig = waiter_->wait(timeout_ms);
  if (sig == "SIGHUP") {
    // The terminal went away: keep tracking, as with --detach.
    log_->info("terminal hung up; tracking continues");
    static SilentProgress silent;
    progress_ = &silent;
    return "";
  }
  return sig;
}

// Every entity has ended (the database is not waited for), or only held ones are left
// and those that wait on them. An open run is never finished: `ssim stop` ends it.
// Asked every tick: it stops at the first entity that keeps the run going (the walk of
// every member not started yet, each tick between two batches, was a tenth of a large
// ensemble's engine).
bool Engine::finished(bool open) const {
  if (open) return false;
  const auto counts = [this](const state::EntityRecord& e) {
    return !is_database(e) && !is_outer_batch(e) && !state::is_terminal(e.status);
  };
  for (size_t i : live_.started())  // the others have ended for good, or not started
    if (const auto& e = m_.entities[i]; counts(e) && !e.held && e.status != Status::New)
      return false;  // pending, running
  // Only entities not started are left: the run goes on while one of them can start
  // (neither held nor waiting on one that is).
  for (const auto list : {std::span<const size_t>(live_.started()), live_.waiting()})
    for (size_t i : list)
      if (const auto& e = m_.entities[i]; counts(e) && e.status == Status::New && !e.held && !waits_on_held(e))
        return false;
  return true;
}

int Engine::run(const EngineHooks& hooks) {
  log_->info("experiment {} starting: {} entities, launcher {}", m_.experiment, m_.entities.size(), launcher_.name());
  // While the run goes, ssim.log is flushed at each wait rather than at each line: three
  // writes per member were on the path from one member's end to the next one's start.
  // Warnings and errors still go out at once.
  const auto flush_level = log_->flush_level();
  log_->flush_on(std::max(flush_level, spdlog::level::warn));
  struct RestoreFlush {
    spdlog::logger& log;
    spdlog::level::level_enum level;
    ~RestoreFlush() {
      log.flush();
      log.flush_on(level);
    }
  } restore_flush{*log_, flush_level};
  // A request left from an earlier run (its runner died before acting) is not this run's.
  for (const auto kind : {state::RequestKind::Stop, state::RequestKind::Start})
    for (const auto& r : state::pending_requests(m_.path, kind)) state::acknowledge_request(m_.path, kind, r.id);
  saver_.save(ctx_);
  {  // resumed: a whole-node step that completed in the earlier run holds nothing now
    std::vector<std::string> ended;
    for (const auto& e : m_.entities)
      if (state::is_terminal(e.status) && !is_database(e)) ended.push_back(e.name);
    if (!ended.empty()) nodes_.take_freed(ctx_, ended);
  }
  const auto first_start = clock_->steady();
  began_ = clock_->now();
  if (plan_.database) {
    try {
      start_database();
    } catch (const Interrupted& i) {
      interrupted(i.signal);
      progress_->finish();
      return 1;
    }
  }
  bool first = true;
  int tick_ms = 5;
  bool stopped = false;
  while (true) {
    live_.update(m_);
    bool changed = start_ready();
    if (first) {
      first = false;
      if (changed) saver_.save(ctx_);
      if (hooks.after_first_start && !hooks.after_first_start()) return 0;
    }
    changed = poll() || changed;
    // Something ended while others wait for room: they start now, not at the next turn.
    if (changed && throttled_) start_ready();
    metrics_.stamp(ctx_, live_.started());  // before the goals: they read what it stamped
    goals_.check(ctx_);
    rank_stops_.check(ctx_, live_.started(),
                      [this](const state::EntityRecord& e) { return attempts_.where_it_runs(e); });
    metrics_.bound(ctx_);
    if (changed || ctx_.dirty) saver_.save_soon(ctx_);
    if (counts_every_.due(clock_->steady())) {
      // Counting reads every record: a million take tens of milliseconds, so the counts
      // come no more often than 50 times what they cost (a tenth of a core was theirs).
      const auto began = std::chrono::steady_clock::now();
      const auto summary = state::summarise(m_);
      progress_->counts(tally_of(summary));
      summary_.offer(summary, clock_->steady());
      counts_every_.at_least(50 * (std::chrono::steady_clock::now() - began));
    }
    if (plan_.database) database_.watch(ctx_);
    if (finished(hooks.open)) break;
    const std::string sig = wait_for_signal(tick_ms);
    if (!sig.empty()) {
      interrupted(sig);
      stopped = true;
      break;
    }
    if (control_.due()) {
      if (handle_stop_requests()) {
        stopped = true;
        break;
      }
      if (handle_start_requests(hooks)) changed = true;
    }
    // Quick ticks while things happen, slower when all is quiet.
    // Throttled (max_running), a freed slot is taken within 10 ms.
    tick_ms = changed ? 5 : std::min(tick_ms * 2, throttled_ ? 10 : 200);
  }
  progress_->counts(tally_of(m_));
  if (!stopped) cancel_held();
  if (!stopped) end_detached(m_, launcher_);  // every entity has ended: what they detached ends too
  if (auto* scheduling = launcher_.scheduling()) scheduling->finish();
  if (plan_.database && !stopped) database_.stop(ctx_);
  m_.finished = clock_->now();
  saver_.save(ctx_);
  log_->info("all ended {:.3f}s after the first start",
             std::chrono::duration<double>(clock_->steady() - first_start).count());
  log_->info("{} polls, {} scheduler queries", polls_,
             launcher_.scheduling() ? launcher_.scheduling()->scheduler_queries() : 0);
  progress_->finish();
  const int code =
      run_exit_code(m_, environment_failed_ || attempts_.environment_failed() || database_.environment_failed());
  log_->info("experiment {} finished, exit code {}", m_.experiment, code);
  return code;
}

}  // namespace ssim::engine
