#pragma once
// Runs a planned experiment: starts entities as `after:` allows, polls all jobs with one
// launcher call per tick, persists every change to the manifest and ssim.log, and stops
// everything on SIGINT/SIGTERM.
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <set>

#include <spdlog/logger.h>

#include "lib/launch/launcher.hpp"
#include "lib/launch/node_pool.hpp"
#include "lib/engine/control_requests.hpp"
#include "lib/engine/database_control.hpp"
#include "lib/engine/database_watch.hpp"
#include "lib/engine/printed_metrics.hpp"
#include "lib/engine/rank_watch.hpp"
#include "lib/engine/event_log.hpp"
#include "lib/engine/progress.hpp"
#include "lib/engine/schedule.hpp"
#include "lib/engine/waiter.hpp"
#include "lib/plan/plan.hpp"
#include "lib/state/manifest.hpp"
#include "lib/state/start_journal.hpp"
#include "lib/util/clock.hpp"

namespace ssim::engine {

// A fresh manifest for `plan`, every entity `new`.
state::Manifest new_manifest(const plan::Plan& plan, const std::string& id);
// For --resume: keeps entities that completed with exit code 0, resets the others and
// everything that waits on them to `new`; entities added to the file are added.
state::Manifest resume_manifest(const plan::Plan& plan, const state::Manifest& previous);
// Whether --resume reuses the earlier run's database: `persist: true`, and every shard
// the plan has is still running (and no other). `previous` must be refreshed.
bool reusable_database(const plan::Plan& plan, const state::Manifest& previous);

struct EngineHooks {
  // Called once, when every entity that can start now has started. Returning false
  // makes run() return 0 at once (the --detach parent); true keeps tracking.
  std::function<bool()> after_first_start;
  // An open run (ssim run --open) does not end when its entities have: it waits for
  // `ssim start` of more (held ones, or ones added to the file) until `ssim stop`.
  bool open = false;
  // The experiment file read again, for `ssim start` of an entity the run does not know
  // yet (added to the file since); its run directories generated. Throws a one-line
  // error (bad file, a changed database). Empty: new entities are refused.
  std::function<plan::Plan()> reload;
};

// The reason a held entity shows until `ssim start` asks for it.
inline constexpr const char* kHeldReason = "held: waiting for ssim start";

// The reason given to a database shard ssim had to signal at the end of a run.
inline constexpr const char* kStoppedAtEnd = "stopped at the end of the run";

// Thrown inside the engine when SIGINT/SIGTERM arrives during a blocking phase.
struct Interrupted {
  std::string signal;
};

// What the engine reads the time from, waits on and asks the database; unit tests give fakes.
struct EngineSeams {
  const Clock* clock = nullptr;         // nullptr: the machine's clocks
  Waiter* waiter = nullptr;             // nullptr: the signalfd given and the launcher's wake descriptor
  DatabaseControl* database = nullptr;  // nullptr: the shards over the network
};

class Engine {
 public:
  // `signal_fd`: a signalfd for SIGINT/SIGTERM/SIGHUP, or -1.
  Engine(const plan::Plan& plan, state::Manifest& manifest, launch::Launcher& launcher, Progress& progress,
         std::shared_ptr<spdlog::logger> log, int signal_fd, EngineSeams seams = {});

  // Returns the exit code (docs/cli.md): 0 all completed, 1 something failed or was cancelled.
  int run(const EngineHooks& hooks = {});
  void set_progress(Progress& p) { progress_ = &p; }

 private:
  // Every event goes to .ssim/events.ndjson and to the progress display.
  void emit(const Event& e);
  // The nodes an entity is placed on (its grant), or this host on the local launcher;
  // "" when the scheduler decides.
  std::string where_it_runs(const state::EntityRecord& r) const;
  static void keep_earlier_output(const state::EntityRecord& r);
  // The database phase (engine_database.cpp).
  void start_database();
  void watch_database();
  void stop_database();
  void report_failed_snapshots();
  bool is_database(const state::EntityRecord& r) const { return r.type == state::EntityKind::Database; }
  // The job of `ssim run --batch` this run is inside: tracked, never started here.
  bool is_outer_batch(const state::EntityRecord& r) const { return r.type == state::EntityKind::Batch; }

  bool start_ready();
  void tell_outcomes(const state::EntityRecord& r, plan::Env& env);
  void start_batch(const std::vector<state::EntityRecord*>& records);
  launch::LaunchRequest request_for(const state::EntityRecord& r);
  void begin_attempt(state::EntityRecord& r);
  bool poll();
  bool retire_lost_nodes();
  // What the loops of every tick walk, by index, so that a tick costs what runs, not
  // every entity (100,000 members: issue 43): started_, the entities started and not
  // ended for good (running, or failed with retries left); waiting_, those not started
  // yet, in order (the schedule's candidates; entries that started meanwhile are dropped
  // from the front and skipped elsewhere). Kept by update_live at the top of each tick.
  void update_live();
  bool ended_for_good(const state::EntityRecord& r) const;
  std::vector<size_t> started_;
  std::vector<size_t> waiting_;
  size_t left_waiting_ = 0;  // started since waiting_ was last swept whole
  size_t live_of_ = 0;       // how many entities there were when the lists were made
  bool live_stale_ = true;   // an entity that had ended runs again (ssim start): made anew
  void end_with_allocation(const launch::JobAllocation::Ended& ended);
  bool schedule_retries();
  // A whole-node step that ended for good gives its nodes to the pool (launcher's
  // nodes_freed_by): the packed members run there too. Returns true when some joined.
  bool take_freed_nodes(const std::vector<std::string>& ended);
  // A gang's member that failed for good ends the rest of its gang (engine_gangs.cpp).
  bool end_gangs_of_failed(const std::vector<std::string>& ended);
  void release_room();
  void interrupted(const std::string& why);
  std::string wall_time_spent() const;
  double began_ = 0;  // when run() began (epoch seconds)
  bool handle_stop_requests();
  // `ssim start` (control_requests.hpp): held entities start, ended ones run again, and
  // ones added to the file join the run. Returns true when something changed.
  bool handle_start_requests(const EngineHooks& hooks);
  std::string start_entities(const std::vector<std::string>& names, const EngineHooks& hooks);
  void add_entities(const plan::Plan& plan);
  void add_steps(const plan::Plan& plan);
  // A new entity that can never start: held, or waiting on one that is (ssim run --only).
  bool waits_on_held(const state::EntityRecord& r, int depth = 0) const;
  bool finished(bool open) const;
  void cancel_held();
  void save();
  void save_soon();
  void report_counts(bool final = false);
  int exit_code() const;
  // Returns the signal name when SIGINT/SIGTERM arrived within `timeout_ms`.
  std::string wait_for_signal(int timeout_ms);

  const plan::Plan& plan_;
  state::Manifest& m_;
  launch::Launcher& launcher_;
  EventLog events_;              // the experiment's events.ndjson, open for the run
  state::StartJournal journal_;  // its .ssim/starts, open for the run
  Progress* progress_;
  std::shared_ptr<spdlog::logger> log_;
  const Clock* clock_;
  std::unique_ptr<Waiter> own_waiter_;
  Waiter* waiter_;
  DatabaseControl* db_;
  std::map<std::string, const plan::Step*> steps_;
  std::deque<plan::Plan> added_plans_;  // the file read again by `ssim start`: their steps are in steps_
  std::string ssdb_;
  std::string password_;
  bool save_failed_ = false;
  bool environment_failed_ = false;                  // an entity could not even be started (disk full, ...)
  bool throttled_ = false;                           // max_running holds entities back
  bool throttled_by_room_ = false;                   // an entity waits for CPUs or GPUs
  bool dirty_ = false;                               // changes not saved yet (save_soon)
  std::chrono::steady_clock::duration save_cost_{};  // how long the last save took
  std::chrono::steady_clock::time_point last_save_{};
  std::chrono::steady_clock::time_point last_counts_{};  // the progress display's last counts
  bool counted_once_ = false;
  Schedule schedule_;       // what may start: readiness, room on the node pool, gangs (schedule.hpp)
  DatabaseWatch db_watch_;  // the database while the entities run (database_watch.hpp)
  void say(const std::vector<Event>& found);
  int polls_ = 0;
  ControlRequests control_;              // ssim stop and ssim start from outside (control_requests.hpp)
  std::set<std::string> retired_nodes_;  // out of the pool until the launcher stops naming them
  std::set<std::string> freed_by_;       // whole-node steps whose nodes joined the pool
  // stop_on_goal (engine_goals.cpp): running entities whose goal is checked every second,
  // and those stopped because they reached it (recorded completed when they end).
  void check_goals();
  void settle_goal_stop(state::EntityRecord& r);
  std::chrono::steady_clock::time_point next_goal_check_{};
  std::set<std::string> goal_stopping_;
  // Ranks that failed while their step runs on (engine_ranks.cpp, rank_watch.hpp): the
  // step is ended, and the entity recorded failed with the ranks' own reason.
  void check_rank_failures();
  void settle_rank_stop(state::EntityRecord& r);
  RankWatch rank_watch_;
  std::chrono::steady_clock::time_point next_rank_check_{};
  std::map<std::string, std::string> rank_stopping_;  // entity -> the reason it fails with
  // Metric lines a lone program prints, stamped about once a second (printed_metrics.hpp).
  void stamp_printed_metrics();
  PrintedMetrics printed_;
  std::chrono::steady_clock::time_point next_printed_look_{};
  // Metrics files kept bounded (engine_metrics.cpp).
  void bound_metrics();
  void bound_metrics_ended(const state::EntityRecord& e);
  void bound_metrics_of(const state::EntityRecord& e, const std::vector<std::string>& files);
  void say_lost_metrics(const std::string& name, const std::vector<std::string>& lost_files);
  std::uintmax_t metrics_limit();
  std::chrono::steady_clock::time_point next_metrics_bound_{};
};

}  // namespace ssim::engine
