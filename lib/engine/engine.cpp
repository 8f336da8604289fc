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

Engine::Engine(const plan::Plan& plan, state::Manifest& manifest, launch::Launcher& launcher, Progress& progress,
               std::shared_ptr<spdlog::logger> log, int signal_fd, EngineSeams seams)
    : plan_(plan),
      m_(manifest),
      launcher_(launcher),
      events_(manifest.path),
      journal_(manifest.path),
      progress_(&progress),
      log_(std::move(log)),
      clock_(seams.clock ? seams.clock : &real_clock()),
      own_waiter_(seams.waiter ? nullptr : std::make_unique<SignalWaiter>(signal_fd, launcher)),
      waiter_(seams.waiter ? seams.waiter : own_waiter_.get()),
      db_(seams.database ? seams.database : &network_database_control()),
      db_watch_(*db_, *clock_),
      control_(manifest.path, *clock_) {
  add_steps(plan_);
  if (auto* scheduling = launcher_.scheduling()) {
    scheduling->set_log([log = log_](const std::string& line) { log->warn("{}", line); });
    scheduling->set_notes([log = log_](const std::string& line) { log->info("{}", line); });
  }
}

// Steps join: by name, and with what each packed one takes from the node pool.
void Engine::add_steps(const plan::Plan& plan) {
  for (const auto& s : plan.steps) steps_[s.name] = &s;
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

// A manifest that cannot be written (full disk, quota) is reported once and the run
// goes on from memory: losing the record must not lose the processes' outcome.
void Engine::save() {
  const auto began = clock_->steady();
  try {
    state::save_manifest(m_);
    last_save_ = clock_->steady();
    save_cost_ = last_save_ - began;
    dirty_ = false;
    state::clear_starts(m_.path);  // the manifest holds them now
    if (save_failed_) log_->info("the manifest can be written again");
    save_failed_ = false;
  } catch (const std::exception& e) {
    if (!save_failed_) {
      log_->error("cannot save the manifest: {}", e.what());
      emit(text_event(EventKind::Error, std::string("cannot save the manifest (") + e.what() + "); the run goes on"));
    }
    save_failed_ = true;
  }
}

// Saves at most every second while entities come and go, and spends at most a thirtieth
// of the time on it (the manifest of 100,000 members takes half a second to write; at a
// tenth, saving was the engine's largest cost in a large ensemble; every 100 ms, a
// seventh of its CPU for 1,000 one-millisecond members): each start is on disk at once
// anyway (the start journal), and the status files hold each end, so a reader from
// another shell is exact whatever the manifest's age.
void Engine::save_soon() {
  dirty_ = true;
  const auto interval = std::max<std::chrono::steady_clock::duration>(std::chrono::seconds(1), save_cost_ * 30);
  if (clock_->steady() - last_save_ >= interval) save();
}

// What may start is decided by the Schedule (schedule.hpp); here it is done: cancelled
// entities are recorded and said, the others started, and waiting gangs get their note.
bool Engine::start_ready() {
  bool changed = false;
  // experiment.max_running: the entities started and not yet ended count against it.
  int running = 0;
  if (plan_.max_running > 0)
    for (size_t i : started_)
      if (const auto& r = m_.entities[i];
          !is_database(r) && !is_outer_batch(r) && (r.status == Status::Pending || r.status == Status::Running))
        ++running;
  throttled_ = throttled_by_room_ = false;
  while (true) {  // a cancellation can make a later entity cancellable, or startable
    const Pass pass = schedule_.next(m_, clock_->now(), plan_.max_running, running, &waiting_);
    throttled_ = throttled_ || pass.throttled;
    throttled_by_room_ = throttled_by_room_ || pass.throttled_by_room;
    for (const auto& [i, why] : pass.wait) {
      auto& r = m_.entities[i];
      if (r.reason == why) continue;
      r.reason = why;
      dirty_ = true;
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
      start_batch(to_start);
    }
    if (pass.empty()) break;
    changed = true;
  }
  return changed;
}

// A rerun (retries:, --resume) does not overwrite what the earlier attempt printed:
// NAME.out and NAME.err become NAME.out.N and NAME.err.N (N: that attempt).
void Engine::keep_earlier_output(const state::EntityRecord& r) {
  for (const char* stream : {".out", ".err"}) {
    const std::string from = r.run_dir + "/" + r.name + stream;
    std::error_code ec;
    if (std::filesystem::exists(from, ec)) std::filesystem::rename(from, from + "." + std::to_string(r.attempt), ec);
  }
}

std::string Engine::where_it_runs(const state::EntityRecord& r) const {
  static const std::string host = host_name();  // once, not per start
  if (plan::runs_here(plan_)) return host;
  std::string nodes;
  if (const launch::Grant* g = schedule_.pool().held_by(r.name)) nodes = join(g->nodes, ",");
  if (!nodes.empty()) return nodes;
  const launch::JobAllocation* allocation = launcher_.allocation();
  return allocation ? allocation->placed_nodes(r.name) : "";
}

namespace {
// A container that never started its program: the runtime's own words are the note.
void note_container_start(state::EntityRecord& r, const plan::Step* step) {
  if (!step || !step->container || !r.exit_code) return;
  if (const auto why = launch::container_start_failure(step->container->runtime, r.exit_code.value_or(-1),
                                                       state::entity_last_error(r.run_dir, r.name, 3)))
    r.reason = *why;
}
}  // namespace

bool Engine::poll() {
  ++polls_;
  update_live();  // also when called outside the run's loop (while the database starts)
  std::vector<std::string> ended_now;
  const bool changed = refresh(
      m_, launcher_,
      [&](const state::EntityRecord& ended, Status before) {
        if (state::is_terminal(ended.status)) ended_now.push_back(ended.name);
        if (ended.status == Status::Failed) {
          const auto step = steps_.find(ended.name);
          note_container_start(*m_.find(ended.name), step == steps_.end() ? nullptr : step->second);
        }
        if (goal_stopping_.count(ended.name) && state::is_terminal(ended.status))
          settle_goal_stop(*m_.find(ended.name));
        if (state::is_terminal(ended.status)) settle_rank_stop(*m_.find(ended.name));
        const state::EntityRecord& r = ended;
        bound_metrics_ended(r);
        log_->info("{}: {} -> {}{}", r.name, to_string(before), to_string(r.status),
                   r.reason.empty() ? "" : " (" + r.reason + ")");
        if (r.status == Status::Running && before == Status::Pending) return;  // too chatty
        emit(entity_event(r.name, to_string(r.type), r.status, r.exit_code, r.reason,
                          r.status == Status::Failed ? failure_pointer(r, plan_.path) : ""));
      },
      &started_);
  const bool retried = schedule_retries();
  release_room();
  const bool freed = !ended_now.empty() && take_freed_nodes(ended_now);
  const bool gangs = !ended_now.empty() && end_gangs_of_failed(ended_now);
  return retire_lost_nodes() || retried || changed || freed || gangs;
}

// Ended, and nothing in this run starts it again by itself: not a failure with retries
// left (ssim start of an ended entity marks the list stale instead).
bool Engine::ended_for_good(const state::EntityRecord& r) const {
  if (!state::is_terminal(r.status)) return false;
  if (r.status != Status::Failed) return true;
  const auto it = steps_.find(r.name);
  return it == steps_.end() || r.attempt > it->second->retries;
}

void Engine::update_live() {
  if (live_stale_ || live_of_ != m_.entities.size()) {
    started_.clear();
    waiting_.clear();
    for (size_t i = 0; i < m_.entities.size(); ++i) {
      const auto& e = m_.entities[i];
      if (e.status == Status::New)
        waiting_.push_back(i);
      else if (!ended_for_good(e))
        started_.push_back(i);
    }
    live_of_ = m_.entities.size();
    live_stale_ = false;
    return;
  }
  // A retried entity is New again: a candidate in waiting_, no longer in started_.
  std::erase_if(started_, [&](size_t i) {
    const auto& e = m_.entities[i];
    return e.status == Status::New || ended_for_good(e);
  });
  // Members start in order, so those that started leave from the front. One held back
  // at the front (after:, --only) would keep the rest in: once as many have started as
  // half the list, the whole list is swept (a sweep per that many starts: still O(1) each).
  size_t front = 0;
  while (front < waiting_.size() && m_.entities[waiting_[front]].status != Status::New) ++front;
  waiting_.erase(waiting_.begin(), waiting_.begin() + static_cast<std::ptrdiff_t>(front));
  if (left_waiting_ * 2 > waiting_.size()) {
    std::erase_if(waiting_, [&](size_t i) { return m_.entities[i].status != Status::New; });
    left_waiting_ = 0;
  }
}

// An entity that ended (or waits to be retried) gives its CPUs and devices back.
void Engine::release_room() {
  for (const auto& name : schedule_.pool().holders()) {
    const auto* r = m_.find(name);
    if (!r || state::is_terminal(r->status) || r->status == Status::New) schedule_.pool().release(name);
  }
}

// `retries: N`: a failed entity (not a cancelled one) goes back to new after a short
// backoff, up to N times; how each attempt ended stays in the manifest.
bool Engine::schedule_retries() {
  bool changed = false;
  for (size_t i : started_) {  // a failure with retries left is never ended for good
    auto& r = m_.entities[i];
    if (r.status != Status::Failed || is_database(r) || is_outer_batch(r)) continue;
    const auto it = steps_.find(r.name);
    if (it == steps_.end() || r.attempt > it->second->retries) continue;
    if (control_.was_stopped(r)) continue;
    r.earlier_attempts.push_back(state::attempt_record(r));
    const double backoff = std::min(0.5 * r.attempt, 5.0);
    r.status = Status::New;
    r.job_id.clear();  // nothing to poll until it starts again
    r.pid = 0;
    r.retry_at = clock_->now() + backoff;
    // A candidate again (waiting_ is in order; it may still hold i if it started out of order).
    if (const auto at = std::lower_bound(waiting_.begin(), waiting_.end(), i); at == waiting_.end() || *at != i)
      waiting_.insert(at, i);
    r.reason = "retrying in " + std::to_string(backoff).substr(0, 3) + " s (attempt " + std::to_string(r.attempt) +
               " of " + std::to_string(it->second->retries + 1) + " failed)";
    log_->info("{}: {}", r.name, r.reason);
    emit(entity_event(r.name, to_string(r.type), r.status, std::nullopt, r.reason));
    changed = true;
  }
  return changed;
}

// At most ten times a second (and at the end): a count walks every entity, and the
// display needs no more.
void Engine::report_counts(bool final) {
  const auto now = clock_->steady();
  if (!final && counted_once_ && now - last_counts_ < std::chrono::milliseconds(100)) return;
  counted_once_ = true;
  last_counts_ = now;
  Tally t;
  std::map<std::string, size_t> index;
  const std::string* last = nullptr;  // members of an ensemble come one after another
  size_t at = 0;
  for (const auto& e : m_.entities) {
    if (is_database(e)) continue;  // the database is not an entity people wait for
    t.counts[e.status]++;
    if (e.ensemble.empty()) continue;
    if (!last || *last != e.ensemble) {
      auto [it, fresh] = index.emplace(e.ensemble, t.ensembles.size());
      if (fresh) t.ensembles.push_back({e.ensemble, 0, 0});
      last = &e.ensemble, at = it->second;
    }
    t.ensembles[at].total++;
    t.ensembles[at].ended += state::is_terminal(e.status);
  }
  progress_->counts(t);
}

int Engine::exit_code() const {
  if (environment_failed_ || db_watch_.external_lost()) return 3;
  // A job the scheduler can never run: the environment failed, not the workflow.
  for (const auto& e : m_.entities)
    if (e.status == Status::Failed && (e.reason.find(launch::kNeverRuns) != std::string::npos ||
                                       e.reason.find(launch::kSubmitRefused) != std::string::npos))
      return 3;
  for (const auto& e : m_.entities) {
    // A persistent database is still running, and that is what was asked.
    if (is_database(e) && (e.status == Status::Running || e.status == Status::Completed)) continue;
    // ssim had to kill it at the end, after every entity had ended: a warning, not a failure.
    if (is_database(e) && e.reason.rfind(kStoppedAtEnd, 0) == 0) continue;
    if (is_outer_batch(e)) continue;
    if (e.status != Status::Completed || e.exit_code != 0) return 1;
  }
  return 0;
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
  for (size_t i : started_)  // the others have ended for good, or not started
    if (const auto& e = m_.entities[i]; counts(e) && !e.held && e.status != Status::New)
      return false;  // pending, running
  // Only entities not started are left: the run goes on while one of them can start
  // (neither held nor waiting on one that is).
  for (const auto* list : {&started_, &waiting_})
    for (size_t i : *list)
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
  save();
  {  // resumed: a whole-node step that completed in the earlier run holds nothing now
    std::vector<std::string> ended;
    for (const auto& e : m_.entities)
      if (state::is_terminal(e.status) && !is_database(e)) ended.push_back(e.name);
    if (!ended.empty()) take_freed_nodes(ended);
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
    update_live();
    bool changed = start_ready();
    if (first) {
      first = false;
      if (changed) save();
      if (hooks.after_first_start && !hooks.after_first_start()) return 0;
    }
    changed = poll() || changed;
    // Something ended while others wait for room: they start now, not at the next turn.
    if (changed && throttled_) start_ready();
    stamp_printed_metrics();  // before the goals: they read what it stamped
    check_goals();
    check_rank_failures();
    bound_metrics();
    if (changed || dirty_) save_soon();
    report_counts();
    if (plan_.database) watch_database();
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
  report_counts(true);
  if (!stopped) cancel_held();
  if (!stopped) end_detached(m_, launcher_);  // every entity has ended: what they detached ends too
  if (auto* scheduling = launcher_.scheduling()) scheduling->finish();
  if (plan_.database && !stopped) stop_database();
  m_.finished = clock_->now();
  save();
  log_->info("all ended {:.3f}s after the first start",
             std::chrono::duration<double>(clock_->steady() - first_start).count());
  log_->info("{} polls, {} scheduler queries", polls_,
             launcher_.scheduling() ? launcher_.scheduling()->scheduler_queries() : 0);
  progress_->finish();
  const int code = exit_code();
  log_->info("experiment {} finished, exit code {}", m_.experiment, code);
  return code;
}

}  // namespace ssim::engine
