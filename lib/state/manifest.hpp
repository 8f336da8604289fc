#pragma once
// <path>/.ssim/manifest.json: everything `ssim status`, `stop` and `logs` need to find
// and judge an experiment's jobs from any process, written atomically.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/state/metrics.hpp"
#include "lib/state/status.hpp"
#include "lib/util/name_table.hpp"

namespace ssim::state {

// What an entity is: a model, an ensemble's member, a database shard, or the job of
// `ssim run --batch` that the rest runs in. In JSON: "model", "member", "database", "batch".
enum class EntityKind { Model, Member, Database, Batch };
std::string to_string(EntityKind kind);
// The kind a JSON name spells (an unknown name: Model).
EntityKind entity_kind(const std::string& name);

// What most entities of a large sweep never have, held apart: one small pointer for
// those that do not (a million members of one program carried 190 empty bytes each).
struct EntityExtra {
  std::vector<std::string> after;
  std::vector<std::string> after_any;                         // ended first, whatever the outcome
  std::string native_id;                                      // the scheduler's id (Slurm JOB.STEP), once known
  std::map<std::string, std::string> params;                  // its parameter values (params:), if any
  nlohmann::json earlier_attempts = nlohmann::json::array();  // how each earlier attempt ended
  std::shared_ptr<const GoalReached> reached;                 // the goal as the engine saw it reached (stop_on_goal)
};

struct EntityRecord {
  std::string name;
  EntityKind type = EntityKind::Model;
  Status status = Status::New;
  std::string ensemble;
  std::string run_dir;
  std::string job_id;  // pid of the supervisor (local), job or step id (schedulers)
  int pid = 0;         // local: the program's pid, which is also its process group
  int attempt = 0;     // 1 for the first run, +1 per retry or --resume that reran it
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::string reason;    // why it failed or was cancelled, when known
  double submitted = 0;  // epoch seconds ssim handed it to the launcher; 0 = not yet
  double start = 0;      // epoch seconds the program started (the submission until known)
  double end = 0;
  double retry_at = 0;  // a failed entity waiting to be retried: not started before this time
  std::string nodes;    // where it runs or ran ("n2,n3"; the host, locally), when known
  bool held = false;    // not started until `ssim start` asks (ssim run --only, entities added to an open run)
  // Started behind setup lines (its own, the experiment's, its batch job's): a status 0
  // is checked against the setup's failure file. Without them nothing is looked up.
  bool setup = false;
  // Ended, and the engine found nothing for metrics readers in its run directory (no
  // metrics.RANK.ndjson, an empty NAME.out): read_metrics(e) looks at no file (a report of
  // 100,000 members read 200,000 files for nothing). False: not known, look.
  bool no_metrics = false;
  std::shared_ptr<const Goal> goal;  // its `goal:` (one shared by an ensemble's members), if any

  // Its rarer fields (EntityExtra): read through extra(), changed through extra_mut()
  // (made, or copied when another record shares them, first).
  const EntityExtra& extra() const;
  EntityExtra& extra_mut();

 private:
  std::shared_ptr<const EntityExtra> extra_;
};

inline bool is_database(const EntityRecord& r) { return r.type == EntityKind::Database; }
// The job of `ssim run --batch` a run is inside: tracked, never started by that run.
inline bool is_outer_batch(const EntityRecord& r) { return r.type == EntityKind::Batch; }

// `name` selects `e`: its own name, or its ensemble's (what ssim stop, start, logs and
// metrics take).
inline bool selects(const std::string& name, const EntityRecord& e) { return name == e.name || name == e.ensemble; }

// When `e` reached its goal: as the engine recorded it (stop_on_goal), else the first of
// its `points` that meets it; nullopt without a goal or when not reached.
std::optional<GoalReached> goal_outcome(const EntityRecord& e, const std::vector<MetricPoint>& points);
// Its metric points (read_metrics), none without a look when the engine found none (no_metrics).
std::vector<MetricPoint> read_metrics(const EntityRecord& e);

struct Manifest {
  int version = 1;
  std::string experiment;
  std::string id;  // unique per experiment; every process it starts carries SSIM_EXPERIMENT_ID
  std::string file;
  std::string path;
  std::string launcher;
  double created = 0;
  double finished = 0;            // set when the run ended
  std::string allocation_job;     // Slurm job id of the allocation the run used
  bool allocation_owned = false;  // ssim made it (salloc) and releases it
  bool database_snapshot = true;  // its shards save a snapshot when they are stopped
  std::string command;            // the command line of the latest ssim run of it ("" before)
  std::vector<EntityRecord> entities;

  EntityRecord* find(const std::string& name);
  const EntityRecord* find(const std::string& name) const;

  // find()'s own: where each name was, checked on every hit and rebuilt when stale (a
  // run of 100,000 members looks names up on every tick).
  mutable NameTable<uint32_t> name_index = {};
};

// How long the entity has run: start to end, or to `now` while it runs; -1 when it has
// not started (a pending entity's start is its submission until the scheduler says).
double seconds_run(const EntityRecord& e, double now);
// Entities by status; the database shards are not counted.
std::map<Status, int> entity_counts(const Manifest& m);

// How an attempt of `r` ended, for its earlier_attempts once it runs again: attempt,
// status, exit_code, signal, reason, start, end, job_id, and where its output was kept.
nlohmann::json attempt_record(const EntityRecord& r);

nlohmann::json to_json(const Manifest& m);
// The manifest file's text (what save_manifest writes), built without the whole JSON document.
std::string manifest_text(const Manifest& m);
Manifest manifest_from_json(const nlohmann::json& j);

// A fresh experiment id (16 hex digits), the SSIM_EXPERIMENT_ID of its processes.
std::string new_experiment_id();

std::string manifest_path(const std::string& experiment_path);
// Throws std::runtime_error when missing or unreadable.
Manifest load_manifest(const std::string& experiment_path);
void save_manifest(const Manifest& m);
// Which version of the manifest file is on disk (inode, size, modification time): a
// reader saves its refreshed copy only over the version it read.
std::string manifest_version(const std::string& experiment_path);

}  // namespace ssim::state
