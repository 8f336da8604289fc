#pragma once
// The launcher seam (DESIGN.md): start a step without blocking, poll many jobs with one
// query, cancel. The engine, `ssim status` and `ssim stop` only talk to this interface;
// local, Slurm, PBS and LSF implement it.
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lib/plan/plan.hpp"
#include "lib/state/status.hpp"

namespace ssim::launchers {

struct LaunchRequest {
  std::string name;
  std::string run_dir;
  std::vector<std::string> argv;  // the full command, e.g. mpirun -np 4 ./sim
  plan::Env env;                  // added to the inherited environment; later entries win
  std::optional<spec::BatchSettings> batch;  // submit as a batch job of its own (schedulers)
};

struct JobRef {
  std::string id;  // local: the supervisor's pid; schedulers: job or step id
  std::string name;
  std::string run_dir;
};

struct JobStatus {
  state::Status status = state::Status::Unknown;
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::string reason;
  double start = 0;
  double end = 0;
  int pid = 0;            // local: the program's pid (its process group), once known
  std::string native_id;  // the scheduler's id (Slurm: JOB.STEP or JOB), once known
};

class Launcher {
 public:
  virtual ~Launcher() = default;
  virtual std::string name() const = 0;
  // The command line `start` would run for `step` (for --dry-run and launching).
  virtual std::vector<std::string> command(const plan::Step& step) const = 0;
  // For a step submitted as its own batch job: the script (for --dry-run), else "".
  virtual std::string batch_script(const plan::Step& step) const {
    (void)step;
    return "";
  }
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
  // Where to report scheduler command failures and retries (the engine's log).
  virtual void set_log(std::function<void(const std::string&)> log) { (void)log; }
  // Scheduler commands issued by poll() so far (0 for the local launcher).
  virtual int scheduler_queries() const { return 0; }
  // Asks the jobs to stop (force: kill them now). Marks them as cancelled by ssim.
  virtual void cancel(std::span<const JobRef> jobs, bool force) = 0;
};

// Throws EnvironmentError for a launcher this build does not have.
std::unique_ptr<Launcher> make_launcher(const std::string& name);

}  // namespace ssim::launchers
