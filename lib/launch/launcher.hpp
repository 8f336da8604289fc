#pragma once
// The launcher seam (docs/dev/architecture.md): start a step without blocking, poll many jobs with one
// query, cancel. The engine, `ssim status` and `ssim stop` only talk to this interface;
// local, Slurm, PBS and LSF implement it.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lib/launch/batch_scheduling.hpp"
#include "lib/launch/job_allocation.hpp"
#include "lib/launch/node_pool.hpp"
#include "lib/launch/setup_script.hpp"
#include "lib/plan/plan.hpp"
#include "lib/state/job_id.hpp"
#include "lib/state/status.hpp"

namespace ssim::launch {

struct LaunchRequest {
  std::string name;
  std::string run_dir;
  std::vector<std::string> argv;                     // the full command, e.g. mpirun -np 4 ./sim
  plan::Env env;                                     // added to the inherited environment; later entries win
  std::shared_ptr<const spec::BatchSettings> batch;  // submit as a batch job of its own (schedulers)
  long time_limit = 0;                               // seconds of run.time, enforced by the local supervisor; 0: none
  std::vector<std::string> nodes = {};               // the nodes of its room, when the pool granted one
  // Its run directory may hold what an earlier attempt left (status, cancel marker, rank
  // records), which the launcher removes first. False for an entity's first attempt:
  // six lookups per member spared in a large ensemble.
  bool earlier_attempts = true;
  // Where the launch is recorded (lib/state/launch_log.hpp): the experiment's launch log;
  // "" records nothing.
  std::string launch_log;
};

struct JobRef {
  state::JobId id;  // local: the supervisor; schedulers: a job of its own, or a node agent's
  std::string name;
  std::string run_dir;
};

// What a launcher needs to know before it can say where steps run.
struct PrepareOptions {
  bool request = false;       // request the allocation `allocation:` asks for (not for dry runs)
  int placeholder_nodes = 0;  // outside any allocation, pretend N nodes (dry run of ssim run --batch)
};

// In the reason of a job the scheduler says can never start (ssim then cancels it), and
// of one the scheduler refused at submission: the run ends with exit code 3, an
// environment failure, not a failure of the workflow.
inline constexpr const char* kNeverRuns = " says it can never run: ";
inline constexpr const char* kSubmitRefused = " refused the job: ";

struct JobStatus {
  state::Status status = state::Status::Unknown;
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::string reason;
  double start = 0;
  double end = 0;
  int pid = 0;               // local: the program's pid (its process group), once known
  std::string native_id;     // the scheduler's id (Slurm: JOB.STEP or JOB), once known
  std::string nodes;         // where it runs, when the scheduler says ("n[2-3]")
  bool never_runs = false;   // pending, and the scheduler says it can never start (PBS "Can Never Run")
  std::string never_reason;  // then the scheduler's why, its own prefixes left out
  bool forgotten = false;    // the scheduler answered that it does not know the job (PBS "Unknown Job Id",
                             // LSF "is not found"): one it knew has ended and left no history
  // Concluded from a record that is missing (its supervisor gone and no end written), not
  // read from one: only the run that tracks the job may act on it (engine::refresh's judge).
  bool judged = false;
};

// What a launcher with a batch scheduler adds: jobs of their own, from scripts.
class BatchSubmission {
 public:
  virtual ~BatchSubmission() = default;
  // For a step submitted as its own batch job (`batch:`): its script (for --dry-run),
  // and where it is written.
  virtual std::string batch_script(const plan::Step& step) const = 0;
  virtual std::string batch_script_path(const plan::Step& step) const = 0;
  // The whole experiment as one batch job (ssim run --batch) running `command`: its
  // script, where it goes, the nodes it asks for, and the submission (returns the job id).
  virtual std::string experiment_script(const plan::Plan& plan, const std::vector<std::string>& command) const = 0;
  virtual std::string experiment_script_path(const plan::Plan& plan) const = 0;
  virtual int experiment_nodes(const plan::Plan& plan) const = 0;
  virtual std::string submit_experiment(const plan::Plan& plan, const std::vector<std::string>& command) = 0;
};

class Launcher {
 public:
  virtual ~Launcher() = default;
  virtual std::string name() const = 0;
  // Every step runs on this machine (the local launcher): no scheduler, no other node.
  virtual bool runs_here() const { return false; }
  // The command line `start` would run for `step` (for --dry-run and launching).
  virtual std::vector<std::string> command(const plan::Step& step) const = 0;
  // Packing (node_pool.hpp): the nodes whose CPUs and GPUs packed steps share (the
  // local machine, or what an allocation's database and whole-node steps leave), which
  // steps take their room there when they start, and the command for a step given its
  // room. No pool: nothing is packed.
  virtual std::vector<PoolNode> pool(const plan::Plan& plan) const {
    (void)plan;
    return {};
  }
  // The nodes step `name` held on its own (a whole-node step the launcher placed), which
  // join the pool once it ended for good: packed steps then run there too. None by
  // default (the local machine's pool is all there is).
  virtual std::vector<PoolNode> nodes_freed_by(const std::string& name) const {
    (void)name;
    return {};
  }
  virtual bool packs(const plan::Step& step) const {
    (void)step;
    return false;
  }
  virtual std::vector<std::string> command_on(const plan::Step& step, const Grant& grant) const {
    (void)grant;
    return command(step);
  }
  // Finds or (with options.request) requests the allocation and places the plan on it.
  // Throws UsageError when the plan does not fit or needs an allocation it cannot have
  // (exit 2, before anything is written), EnvironmentError when a request is refused.
  virtual void prepare(const plan::Plan& plan, const PrepareOptions& options) { (void)plan, (void)options; }
  // The allocation the steps run in: null on the local launcher.
  virtual JobAllocation* allocation() { return nullptr; }
  virtual const JobAllocation* allocation() const { return nullptr; }

  // Submitting whole jobs to a batch scheduler: null on the local launcher.
  virtual BatchSubmission* batch() { return nullptr; }
  virtual const BatchSubmission* batch() const { return nullptr; }
  // Talking to a batch scheduler while the run goes (queries, nodes out of use, node
  // agents): null on the local launcher.
  virtual BatchScheduling* scheduling() { return nullptr; }
  virtual const BatchScheduling* scheduling() const { return nullptr; }
  // The command that starts database shard `shard` (whose own command is `inner`) in
  // `run_dir`: as it is on the local launcher, an srun step on its node under Slurm.
  virtual std::vector<std::string> database_command(int shard, const std::string& run_dir,
                                                    const std::vector<std::string>& inner) const {
    (void)shard;
    (void)run_dir;
    return inner;
  }
  // Starts the jobs and returns at once, one JobRef per request, in order. Throws
  // EnvironmentError when it cannot.
  virtual std::vector<JobRef> start(std::span<const LaunchRequest> requests) = 0;
  // The status of every job, in order, from one query.
  virtual std::vector<JobStatus> poll(std::span<const JobRef> jobs) = 0;
  // A descriptor that becomes readable when a job may have ended (the local
  // supervisors write to it), so a freed CPU is taken at once; -1 when there is none.
  // Whoever waits on it calls take_wake() once it is readable.
  virtual int wake_fd() const { return -1; }
  // Reads what the wake descriptor holds (the default: empties it; the local launcher
  // learns which jobs ended, and polls those).
  virtual void take_wake();
  // Asks the jobs to stop (force: kill them now). Marks them as cancelled by ssim.
  virtual void cancel(std::span<const JobRef> jobs, bool force) = 0;
  // At the end of a run (and on a full stop): ends what the jobs detached from
  // themselves (double fork + setsid), which outlives their own process groups.
  virtual void end_detached(std::span<const JobRef> jobs) { (void)jobs; }
  // On a full stop, after the jobs: kills whatever of experiment `experiment_id` is still
  // running where this launcher can see (programs that left their process group carry
  // SSIM_EXPERIMENT_ID in their environment); returns how many. The default sweeps this
  // machine's processes.
  virtual int sweep(const std::string& experiment_id);
};

// Empties a wake descriptor (Launcher::wake_fd, non-blocking).
void drain_wake_fd(int fd);

// What runs in each task of `step`: its program and arguments, inside its container when
// it has one (container_command.hpp), through `supervisor --colocated-db ... --` when it
// has a colocated database.
std::vector<std::string> task_program(const plan::Step& step, const std::string& supervisor);

// What ssim runs for `step` (on `grant`, when packed): the launcher's command, with the
// step's setup lines in front unless the step is a batch job of its own (its script has
// them).
std::vector<std::string> step_argv(const Launcher& launcher, const plan::Step& step, const Grant* grant = nullptr);

}  // namespace ssim::launch
