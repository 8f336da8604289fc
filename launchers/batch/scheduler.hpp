#pragma once
// The pure, per-scheduler part of the batch layer (one implementation per folder:
// slurm/, pbs/, lsf/). It builds command lines and reads the scheduler's answers, and
// never starts a process, so it is unit-tested on recorded outputs only. Everything
// scheduler-neutral (placement, steps under supervisors, merging states, cancel,
// allocations) is BatchLauncher's (batch_launcher.hpp). The cut follows PSI/J's
// get_submit_command / job_id_from_submit_output / get_status_command /
// parse_status_output / get_cancel_command.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "launchers/placement/allocation.hpp"
#include "launchers/batch/batch_job.hpp"
#include "lib/launch/command_runner.hpp"
#include "lib/launch/launcher.hpp"
#include "launchers/ranks/rank_command.hpp"

namespace ssim::launchers {
using namespace ssim::launch;

using Getenv = std::function<const char*(const char*)>;
using ReadText = std::function<std::optional<std::string>(const std::string&)>;

struct SubmitCommand {
  std::vector<std::string> argv;
  std::string stdin_path;  // LSF reads the script on stdin (bsub < script)
};

// A step inside the allocation that writes its own scheduler id to its run directory
// (ssim-supervise --record-step): `id_template` names environment variables in braces,
// as "{SLURM_JOB_ID}.{SLURM_STEP_ID}"; only the task whose `rank_variable` is 0 writes.
struct StepIdRecipe {
  std::string id_template;
  std::string rank_variable;
};

// Capability: `allocation:` from outside a job. The request (whole nodes), the job id in
// its answer, and the query for the nodes granted. A scheduler without it refuses
// `allocation:` with its `allocation_hint`.
class AllocationRequests {
 public:
  virtual ~AllocationRequests() = default;
  virtual std::vector<std::string> allocation_command(const std::string& name, const spec::BatchSettings& settings,
                                                      int nodes) const = 0;
  virtual std::string allocation_id_from_output(const CommandResult& r) const = 0;
  virtual std::vector<std::string> allocation_hosts_command(const std::string& id) const = 0;
  // The allocation's nodes (and CPUs per node when known); no hosts when unreadable.
  virtual Allocation parse_allocation(const std::string& id, const CommandResult& r) const = 0;
};

// Capability: nodes of the allocation the scheduler has taken out of use (drained or
// draining, down, failed) while the job holds them: its steps could still start there.
// The query for `nodes`, and its answer as node -> why ("drained by slurm (bad dimm)").
class NodeHealth {
 public:
  virtual ~NodeHealth() = default;
  virtual std::vector<std::string> node_state_command(const std::vector<std::string>& nodes) const = 0;
  virtual std::map<std::string, std::string> parse_out_of_use(const CommandResult& r) const = 0;
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual std::string name() const = 0;              // slurm, pbs, lsf
  virtual std::string script_extension() const = 0;  // sbatch, pbs, lsf
  virtual std::string submit_program() const = 0;    // sbatch, qsub, bsub

  // The job this process runs inside, from its environment (and the host files the
  // scheduler names there); nullopt outside a job.
  virtual std::optional<Allocation> current_allocation(const Getenv& getenv, const ReadText& read) const = 0;

  // Inside a job: a query that says more of it than its environment does (PBS: the CPUs
  // the job holds on each host, where PBS_NODEFILE has a line per MPI process only), and
  // how to read it into `a`; nullopt when the environment says it all.
  virtual std::optional<std::vector<std::string>> allocation_detail_command(const Allocation& a) const {
    (void)a;
    return std::nullopt;
  }
  virtual void refine_allocation(Allocation& a, const CommandResult& r) const { (void)a, (void)r; }
  // The variable that names a job's host file (one line per MPI slot): a multi-rank
  // step in a job of its own gets it as mpirun --hostfile, since an MPI built without
  // the scheduler's support cannot see the job's hosts. "" when the launcher needs none.
  virtual std::string job_hostfile_variable() const { return ""; }
  // The variable that holds the scheduler's name for the node a process runs on, where
  // it differs from the host name (Slurm: SLURMD_NODENAME); "": the host name.
  virtual std::string node_variable() const { return ""; }
  // How mpirun reaches a step's placed nodes (rank_command.hpp); empty: --host.
  virtual MpirunNodes mpirun_nodes() const { return {}; }

  // The batch script; throws UsageError for a value a directive cannot hold.
  virtual std::string render_script(const BatchJob& job) const = 0;
  virtual SubmitCommand submit_command(const std::string& script_path) const = 0;
  // The job id, or "" when the scheduler refused the job.
  virtual std::string job_id_from_submit_output(const CommandResult& r) const = 0;

  // One query for every id. The parser returns nullopt when the answer is no answer
  // (the command failed); otherwise a status for each id the scheduler spoke of, where
  // Status::Unknown means it said it does not know the job. Ids it did not mention are
  // left out (accounting that lags behind a fresh submit).
  virtual std::vector<std::string> status_command(const std::vector<std::string>& ids) const = 0;
  virtual std::optional<std::map<std::string, JobStatus>> parse_status_output(
      const CommandResult& r, const std::vector<std::string>& ids) const = 0;
  // After a failed status query: true when it switched to another source for good
  // (Slurm: squeue when accounting is disabled), so the query is worth asking again.
  virtual bool switch_status_source(const CommandResult& r) {
    (void)r;
    return false;
  }

  virtual std::vector<std::string> cancel_command(const std::vector<std::string>& ids) const = 0;
  // True when the jobs are stopped or had already ended ("Job has finished").
  virtual bool cancel_output_ok(const CommandResult& r) const = 0;

  // Capabilities some schedulers have (nullptr where this one has not): holding an
  // allocation for ssim from outside a job, and saying which nodes it took out of use.
  virtual const AllocationRequests* allocation_requests() const { return nullptr; }
  virtual const NodeHealth* node_health() const { return nullptr; }
  // For `ssim run --batch` and `allocation:` sized by CPUs: the query for the CPUs of
  // one node of the queue (the smallest), or nullopt when the scheduler has none.
  virtual std::optional<std::vector<std::string>> cpus_per_node_command(const spec::BatchSettings& settings) const {
    (void)settings;
    return std::nullopt;
  }
  virtual int parse_cpus_per_node(const CommandResult& r) const {
    (void)r;
    return 0;
  }
  // How to run inside a job of this scheduler, for messages.
  virtual std::string allocation_hint() const = 0;

  // How ranks start when a step says mpi: auto (or none).
  virtual RankLauncher default_rank_launcher(const plan::Resources& res) const = 0;
  virtual std::optional<StepIdRecipe> step_id_recipe() const { return std::nullopt; }

  // Node agents (docs/launchers.md): the one launch that starts `program` once on each
  // of `nodes` of allocation `job_id` ("" inside ssim's own job), sharing their CPUs
  // with every other step; nullopt when this scheduler runs every step on its own.
  virtual std::optional<std::vector<std::string>> agent_command(const std::string& job_id,
                                                                const std::vector<std::string>& nodes,
                                                                const std::vector<std::string>& program) const {
    (void)job_id, (void)nodes, (void)program;
    return std::nullopt;
  }
  // The variables of its node an agent passes on to its jobs, over ssim's own.
  virtual std::vector<std::string> agent_node_variables() const { return {}; }
  // What a one-task job started by an agent is told, as a step of its own would be.
  virtual plan::Env agent_task_env() const { return {}; }
};

}  // namespace ssim::launchers
