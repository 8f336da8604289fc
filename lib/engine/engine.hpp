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
#include "lib/engine/attempts.hpp"
#include "lib/engine/control_requests.hpp"
#include "lib/engine/database_control.hpp"
#include "lib/engine/database_upkeep.hpp"
#include "lib/engine/goal_stops.hpp"
#include "lib/engine/manifest_saver.hpp"
#include "lib/engine/metrics_upkeep.hpp"
#include "lib/engine/node_changes.hpp"
#include "lib/engine/rank_stops.hpp"
#include "lib/engine/run_context.hpp"
#include "lib/engine/event_log.hpp"
#include "lib/engine/live_index.hpp"
#include "lib/engine/progress.hpp"
#include "lib/engine/schedule.hpp"
#include "lib/engine/summary_writer.hpp"
#include "lib/engine/waiter.hpp"
#include "lib/plan/plan.hpp"
#include "lib/state/manifest.hpp"
#include "lib/state/start_journal.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/every.hpp"

namespace ssim::engine {

// A fresh manifest for `plan`, every entity `new`.
state::Manifest new_manifest(const plan::Plan& plan, const std::string& id);
// For --resume: keeps entities that completed with exit code 0, resets the others and
// everything that waits on them to `new`; entities added to the file are added. Takes
// the previous run's records (made over in place when the file is unchanged).
state::Manifest resume_manifest(const plan::Plan& plan, state::Manifest&& previous);
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
  // The database phase (engine_database.cpp).
  void start_database();

  bool start_ready();
  bool poll();
  // A gang's member that failed for good ends the rest of its gang (engine_gangs.cpp).
  bool end_gangs_of_failed(const std::vector<std::string>& ended);
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
  // Returns the signal name when SIGINT/SIGTERM arrived within `timeout_ms`.
  std::string wait_for_signal(int timeout_ms);

  const plan::Plan& plan_;
  state::Manifest& m_;
  launch::Launcher& launcher_;
  EventLog events_;  // the experiment's events.ndjson, open for the run
  Progress* progress_;
  std::shared_ptr<spdlog::logger> log_;
  const Clock* clock_;
  std::unique_ptr<Waiter> own_waiter_;
  Waiter* waiter_;
  DatabaseControl* db_;
  StepsByName steps_;
  LiveIndex live_;                      // what each tick walks (live_index.hpp), kept at the top of each tick
  std::deque<plan::Plan> added_plans_;  // the file read again by `ssim start`: their steps are in steps_
  std::string ssdb_;
  std::string password_;
  bool environment_failed_ = false;                     // the database could not even be started
  bool throttled_ = false;                              // max_running holds entities back
  bool throttled_by_room_ = false;                      // an entity waits for CPUs or GPUs
  Every counts_every_{std::chrono::milliseconds(100)};  // the display needs counts no more often
  SummaryWriter summary_{m_.path};                      // for `ssim status --summary` in other shells
  Schedule schedule_;  // what may start: readiness, room on the node pool, gangs (schedule.hpp)
  Attempts attempts_{plan_, launcher_, schedule_, m_.path, ssdb_, password_};  // starts, retries (attempts.hpp)
  NodeChanges nodes_{schedule_, node_sources_of(launcher_)};  // nodes freed, lost and back (node_changes.hpp)
  DatabaseUpkeep database_{plan_,   launcher_, *db_,
                           *clock_, ssdb_,     password_};  // watched, stopped (database_upkeep.hpp)
  int polls_ = 0;
  ControlRequests control_;  // ssim stop and ssim start from outside (control_requests.hpp)
  RunContext ctx_;           // what the phases below read and do (run_context.hpp)
  GoalStops goals_;          // stop_on_goal (goal_stops.hpp)
  RankStops rank_stops_;     // a failed rank's step ended (rank_stops.hpp)
  MetricsUpkeep metrics_;    // printed metrics stamped, files bounded (metrics_upkeep.hpp)
  ManifestSaver saver_;      // when the manifest is written (manifest_saver.hpp)
};

}  // namespace ssim::engine
