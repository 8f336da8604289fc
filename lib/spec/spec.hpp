#pragma once
// The experiment file as plain typed values (docs/experiment-file.md). Values that may hold
// $(param) references (args, env values, run settings) stay text here, with their
// position, and are substituted and type-checked by the plan.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/spec/error.hpp"

namespace ssim::spec {

// The largest experiment file ssim reads (documented in docs/experiment-file.md).
constexpr size_t kMaxFileBytes = 4 * 1024 * 1024;
// The default cap on the members of all ensembles together (--max-members raises it).
constexpr size_t kDefaultMaxMembers = 100000;

struct ParseOptions {
  size_t max_members = kDefaultMaxMembers;
  // The names experiment.launcher accepts: the launcher registry's, given by whoever
  // parses (launchers are above the spec; lib/session passes them).
  std::vector<std::string> launchers;
  // An experiment of a database alone is fine (ssim run --open: entities come later).
  bool database_alone = false;
};

struct Text {
  std::string value;
  Loc loc;
};

using TextMap = std::vector<std::pair<std::string, Text>>;  // ordered as written

struct RunSettings {
  // Field name -> raw text, for nodes, ntasks, tasks_per_node, cpus_per_task,
  // gpus_per_task, time, exclusive, mpi.
  TextMap fields;
  std::vector<Text> hosts;
  TextMap launcher_args;
  Loc loc;
};

struct BatchSettings {
  std::optional<int> nodes;
  std::string time;
  std::string account;
  std::string queue;
  TextMap options;
  std::vector<std::string> setup;
  Loc loc;
};

struct Files {
  std::vector<Text> copy;
  std::vector<Text> symlink;
  std::vector<Text> configure;
};

struct Param {
  std::string name;
  std::vector<Text> values;  // one value for models; a list for ensembles
  Loc loc;
};

// SmartSim's colocated model: a database of the entity's own on each of its nodes,
// reached through a Unix socket (the default) or a loopback port.
// orchestrator.inference / colocated_db.inference: a TorchScript service beside each
// database (a shard, or a colocated database on each node) (docs/inference.md).
struct Inference {
  bool enabled = false;
  int threads = 0;  // libtorch's threads per model call; 0: libtorch's default
  Loc loc;
  std::string field;  // "orchestrator.inference", for messages
};

struct ColocatedDb {
  int port = 0;  // 0: a Unix socket
  int cpus = 1;  // taken on each node besides the tasks' own
  std::string binary = "redis-server";
  std::vector<std::pair<std::string, std::string>> config;
  Inference inference;
  Loc loc;
};

// container: {runtime: charliecloud, image: ./img, bind: [...], options: [...]} on an
// entity, or under experiment: as every entity's default (docs/containers.md).
// `container: none` on an entity runs it on the host whatever the default.
struct Container {
  std::string runtime = "auto";  // apptainer, singularity, charliecloud, podman, docker, auto
  Text image;                    // a path (./img, /x.sif) or a name the runtime knows
  std::vector<Text> bind;        // SRC[:DST[:ro]], SRC relative to the file's folder
  std::vector<Text> options;     // given to the runtime before the image, as written
  bool none = false;
  Loc loc;
  std::string field;  // "models[0].container", for messages
};

// goal: {metric: val_acc, at_least: 0.8, stop_on_goal: true} (docs/metrics.md).
struct Goal {
  std::string metric;
  bool at_least = true;
  double target = 0;
  bool stop = false;
  Loc loc;
};

enum class EntityKind { Model, Ensemble };
enum class Strategy { AllPerm, Step, Random };

struct Entity {
  EntityKind kind = EntityKind::Model;
  std::string name;
  Loc loc;
  std::string field;  // "models[0]" or "ensembles[1]", for messages
  Text exe;
  std::vector<Text> args;
  TextMap env;
  std::vector<Param> params;
  RunSettings run;
  Files files;
  std::vector<Text> incoming;
  std::vector<Text> after;       // must complete with exit code 0 first (every member of an ensemble)
  std::vector<Text> after_any;   // must have ended first, whatever the outcome (run regardless)
  std::vector<Text> after_each;  // ensembles: member i waits for member i of each (same parameters)
  std::optional<BatchSettings> batch;
  bool key_prefixing = false;
  int retries = 0;  // reruns of a failed entity (each member on its own)
  std::optional<Goal> goal;
  std::vector<std::string> setup;  // shell lines before its program, after experiment.setup
  std::optional<ColocatedDb> colocated_db;
  std::optional<Container> container;
  // smartredis: true: its program (built against SmartRedis) reaches the database
  // through a door (docs/coming-from-smartsim.md); unset: experiment.smartredis.
  std::optional<bool> smartredis;
  Loc smartredis_loc;
  // Ensembles only.
  int replicas = 1;
  bool gang = false;  // ensembles: every member starts together, or none holds room (docs/distributed.md)
  Strategy strategy = Strategy::AllPerm;
  std::optional<int> samples;
  std::optional<uint64_t> seed;
  Loc params_loc;
  Loc samples_loc;
};

// How many members an entity expands to (combinations x replicas; 1 for a model),
// counted without building them and saturating at SIZE_MAX.
size_t member_count(const Entity& e);
// How many distinct parameter combinations an entity's params allow (all_perm's count).
size_t combination_space(const Entity& e);

enum class PasswordMode { Auto, None };

struct Orchestrator {
  int port = 6780;  // 0: auto, a free port chosen when the run starts
  int shards = 1;
  std::string interface;
  std::string binary = "redis-server";
  std::vector<std::pair<std::string, std::string>> config;
  PasswordMode password = PasswordMode::Auto;
  bool persist = false;
  bool snapshot = true;       // saved into its run directory when it stops; restored on --resume
  std::string address;        // an external database: "host:port[,host:port...]", not started here
  std::string password_file;  // a file holding its password, for an external database
  Loc password_file_loc;
  RunSettings run;
  std::optional<BatchSettings> batch;
  Inference inference;
  std::optional<Container> container;  // the server runs in this image (not experiment.container's)
  Loc loc;
};

struct ExperimentSpec {
  std::string file;      // as given by the user, for messages
  std::string base_dir;  // absolute directory of the YAML file; files resolve here
  std::string name;
  std::optional<std::string> path;
  Loc path_loc;  // of experiment.path, or of experiment.name when path is not given
  std::string launcher = "auto";
  TextMap env;
  std::vector<std::string> setup;
  int max_running = 0;                 // entities running at once, at most (0: no limit)
  bool oversubscribe = false;          // local launcher: start entities whatever CPUs they need
  std::string python;                  // the interpreter `exe: python3` (or python) means; "" for the default
  std::optional<Container> container;  // experiment.container: every entity's default
  bool smartredis = false;             // experiment.smartredis: every entity's default
  Loc smartredis_loc;
  std::optional<BatchSettings> allocation;
  std::optional<BatchSettings> batch;
  std::optional<Orchestrator> orchestrator;
  std::vector<Entity> entities;  // in file order (by position in the file)
};

}  // namespace ssim::spec
