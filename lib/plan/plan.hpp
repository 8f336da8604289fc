#pragma once
// The plan: every entity expanded into concrete steps, with parameters substituted,
// resources type-checked, environment and run directory computed. Launcher-independent:
// a launcher turns a Step into a command line (launchers/).
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/plan/container.hpp"
#include "lib/spec/spec.hpp"

namespace ssim::plan {

// How a step's ranks start: what `mpi:` asks for (Auto: the launcher's own way), and,
// resolved by the launchers (launchers/ranks/rank_command.hpp), how they do start (None:
// the program itself). One name table: `mpi:`'s words, the dry run's and the docs'.
enum class MpiKind { Auto, None, Srun, Mpirun, Mpiexec, Aprun, Jsrun };
const std::vector<std::pair<std::string, MpiKind>>& mpi_kind_names();
std::string to_string(MpiKind kind);

struct Resources {
  int nodes = 0;  // 0: not given
  int ntasks = 1;
  int tasks_per_node = 0;
  int cpus_per_task = 0;
  int gpus_per_task = 0;
  int node_cpus = 0;  // CPUs taken on each of its nodes besides its tasks' (a colocated database)
  std::string time;
  bool exclusive = false;  // whole nodes (default: when nodes: is given)
  bool agent = true;       // inside an allocation, a one-task step may run through a node's agent
  bool rank_env = true;    // RANK, WORLD_SIZE, MASTER_ADDR... set for every rank (docs/distributed.md)
  int torchrun = 0;        // each task is a torchrun of this many workers (PET_* set by ssim); 0: no
  std::vector<std::string> hosts;
  MpiKind mpi = MpiKind::Auto;
  std::vector<std::pair<std::string, std::string>> launcher_args;
  // Whether its tasks start through ssim's rank wrapper (launchers/ranks/rank_wrapper.hpp):
  // several ranks, or torchruns (whose PET_* variables it sets). A lone plain rank has its
  // wiring in its environment.
  bool wrapped_ranks() const { return ntasks > 1 || torchrun > 0; }
  bool operator==(const Resources&) const = default;
};

enum class StepKind { Model, Member };
std::string to_string(StepKind kind);

using Env = std::vector<std::pair<std::string, std::string>>;

// What a step's environment has that its entity's members share: the file's env
// (experiment.env, then the entity's env:) and the switches for ssim's own variables. One
// copy for all members whose values are equal, not one per member of 100,000.
struct SharedEnv {
  Env from_file;
  std::string experiment;
  bool database = false;  // SSDB
  bool password = false;  // SSDB_PASSWORD
  bool key_out = false;   // SSKEYOUT (key_prefixing)
  bool operator==(const SharedEnv&) const = default;
};

// What a step runs and how: its program, arguments, resources, setup lines, files. An
// ensemble's members whose values are equal share one (a million members of one
// program held a million copies: half a kilobyte each).
struct StepProgram {
  std::string exe;
  std::vector<std::string> args;
  Resources res;
  std::vector<std::string> incoming;       // step names it reads from (SSKEYIN)
  int retries = 0;                         // reruns after a failure (not after a cancellation)
  bool gang = false;                       // a member of an ensemble whose members start together
  bool smartredis = false;                 // its program runs behind the SmartRedis door (ssim-door)
  std::shared_ptr<const spec::Goal> goal;  // goal: (one shared by an ensemble's members)
  std::vector<std::string> setup;          // experiment.setup, then the entity's own setup lines
  std::shared_ptr<const spec::ColocatedDb> colocated_db;
  std::shared_ptr<const spec::BatchSettings> batch;
  std::shared_ptr<const Container> container;         // its program runs inside (nullptr: on the host)
  std::vector<std::string> copy, symlink, configure;  // absolute source paths
  bool operator==(const StepProgram&) const = default;
};

struct Step {
  std::string name;
  StepKind kind = StepKind::Model;
  std::string ensemble;                         // for members
  int index = -1;                               // member index within its ensemble
  int replica = 0;                              // which copy of its parameter combination (0..replicas-1)
  std::shared_ptr<const SharedEnv> shared_env;  // step_env() gives the whole environment
  std::string run_dir;
  std::vector<std::string> after;      // step names that must complete with exit code 0 first
  std::vector<std::string> after_any;  // step names that must have ended first, whatever the outcome
  std::vector<std::pair<std::string, std::string>> parameters;   // its own params: values, in order
  std::shared_ptr<const StepProgram> program = empty_program();  // shared: change it through edit()

  // Its own program to change (copied first when shared).
  StepProgram& edit();

 private:
  static std::shared_ptr<const StepProgram> empty_program();
};

struct Database {
  int port = 6780;
  int shards = 1;
  std::string interface;
  std::string binary;
  std::vector<std::pair<std::string, std::string>> config;
  bool password = true;
  bool persist = false;
  bool snapshot = true;                        // SHUTDOWN SAVE into the shard's run directory; loaded again on --resume
  spec::Inference inference;                   // a TorchScript service beside each shard
  std::shared_ptr<const Container> container;  // the server runs inside (the service beside it outside)
  std::string address;                         // external: "host:port[,...]" of a database ssim does not run
  std::string password_file;                   // external: absolute path of its password file ("" for none)
  bool external() const { return !address.empty(); }
  std::string run_dir;
  std::optional<spec::BatchSettings> batch;  // shards as batch jobs of their own
  Resources res;                             // run settings of each shard
};

// What step `s` adds to the inherited environment, in order (later entries win): the
// file's env, then SSDB, SSDB_PASSWORD, SSKEYOUT, SSKEYIN, SSIM_EXPERIMENT, SSIM_ENTITY,
// SSIM_RUN_DIR, SSIM_REPLICA and SSIM_MEMBER_INDEX (members), SSIM_PARAM_<name>.
Env step_env(const Step& s);

// What a launch of step `s` adds on top of step_env, the same for a run and for what
// --dry-run prints: the ssim Python module first on PYTHONPATH (one entry, the file's own
// kept after it), SSIM_EXPERIMENT_ID and SSIM_ATTEMPT. `experiment_id` may be a
// placeholder (kExperimentIdPlaceholder) where no run has made one yet.
Env launch_env(const Step& s, const std::string& experiment_id, int attempt);
inline constexpr const char* kExperimentIdPlaceholder = "<experiment id, made by ssim run>";

// What $(name) in the file and ;name; tags in configured files stand for in step `s`:
// its parameters, and entity, ensemble, replica, member_index, experiment, run_dir.
std::map<std::string, std::string> tag_values(const Step& s, const std::string& experiment);

// Placeholders in Step::env filled in by the engine once the database answers.
inline constexpr const char* kSsdbPlaceholder = "<database address>";
inline constexpr const char* kPasswordPlaceholder = "<database password>";
// A lone rank's MASTER_PORT: a port free when it starts, chosen then (never 0, which
// sends every process a program spawns itself to a port of its own).
inline constexpr const char* kFreePortPlaceholder = "<a free port>";

struct Plan {
  std::string name;
  std::string file;      // absolute path of the YAML file
  std::string path;      // absolute experiment directory
  std::string launcher;  // resolved: local | slurm | pbs | lsf
  std::vector<std::string> setup;
  int max_running = 0;         // experiment.max_running (0: no limit)
  bool oversubscribe = false;  // experiment.oversubscribe
  std::optional<spec::BatchSettings> allocation;
  std::optional<spec::BatchSettings> batch;
  std::optional<Database> database;
  std::vector<Step> steps;  // in start order (file order)
};

struct PlanContext {
  std::string cwd;       // experiment.path resolves against it
  std::string launcher;  // resolved launcher name
  // What `exe: python3` (or python) becomes when the file has no experiment.python:
  // $SSIM_PYTHON, else the interpreter ssim's module is built for; "" leaves it to PATH.
  std::string python;
  // `python` was asked for ($SSIM_PYTHON), so it wins over the PATH that setup lines
  // leave; the built-for default does not (a `module load` or venv picks the Python).
  bool python_chosen = false;
  // The container runtimes installed here, for container.runtime: auto.
  std::vector<ContainerRuntime> container_runtimes = {};
};

// Whether every step runs on this machine (the local launcher): outside launchers/, the
// one place that knows that launcher's name.
inline bool runs_here(const Plan& plan) { return plan.launcher == "local"; }

// Throws spec::SpecError for values that are wrong after substitution.
Plan build_plan(const spec::ExperimentSpec& spec, const PlanContext& context);

}  // namespace ssim::plan
