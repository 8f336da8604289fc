#pragma once
// How a step's ranks start, in a job or on the local machine: the axis that is
// independent of the scheduler
// (srun, mpirun, mpiexec, aprun, jsrun, or the program itself). Pure: argv and the
// environment the launch command needs, from the step's resources and placement.
#include <functional>
#include <string>
#include <vector>

#include "launchers/placement/placement.hpp"
#include "lib/plan/plan.hpp"

namespace ssim::launchers {

// How a step's ranks start, resolved: never Auto; None is the program itself (plain).
// The same kind, with the same names (plan::to_string), as what `mpi:` asks for.
using RankLauncher = plan::MpiKind;

struct RankContext;
// How mpirun reaches a step's placed nodes, when the scheduler's MPI integration needs
// more than the default `--host NODE:SLOTS,...` (Slurm: its daemons start as one srun
// step on those nodes). Adds to mpirun's argv and to the launch command's environment.
using MpirunNodes = std::function<void(std::vector<std::string>& argv, const Placement& placement,
                                       const RankContext& context, const plan::Resources& res, plan::Env& env)>;

struct RankContext {
  std::string allocation_id;  // the job whose nodes the step uses; "" inside its own job
  bool is_root = false;       // Open MPI refuses root without --allow-run-as-root
  // In a job of its own: the variable naming the job's host file (PBS_NODEFILE), given
  // to mpirun as --hostfile; "" when mpirun finds the hosts itself.
  std::string hostfile_variable = {};
  bool oversubscribe = false;     // more ranks than CPUs (the local machine): Open MPI refuses without it
  MpirunNodes mpirun_nodes = {};  // empty: --host with each node's slots
  // Variables Open MPI's mpirun passes to ranks on other nodes (-x NAME): its daemons
  // there start them with their own environment, not ssim's (srun and MPICH's
  // mpiexec copy the whole environment themselves).
  std::vector<std::string> forward = {};
};

// A command word that the batch script renders as "$NAME" (the job's own variable,
// known only inside it); no other word is ever expanded.
std::string job_variable_word(const std::string& name);
// NAME when `word` is such a word, else "".
std::string job_variable_of(const std::string& word);

struct StepLaunch {
  std::vector<std::string> argv;
  plan::Env env;  // added for the launch command itself (Slurm's view for mpirun)
};

// An explicit `mpi:` wins; auto and none use the scheduler's own way of starting
// tasks on its nodes (the commands still know whether the program is MPI).
RankLauncher rank_launcher_for(plan::MpiKind mpi, RankLauncher scheduler_default);

// `program` is what runs in each task.
StepLaunch rank_command(RankLauncher launcher, const std::string& name, const plan::Resources& res,
                        const Placement& placement, const RankContext& context,
                        const std::vector<std::string>& program);

// Tasks per node when the step spreads `ntasks` over `nodes` (tasks_per_node when given).
int tasks_per_node(const plan::Resources& res, int nodes);

// Each launch command's own argv, without the program.
std::vector<std::string> mpirun_command(const std::string& exe, const plan::Resources& res, const Placement& placement,
                                        const RankContext& context, plan::Env& env);
// Node agents through mpirun (PBS, LSF without jsrun: docs/launchers.md "Agents"): one
// on each of `nodes`, rank i on nodes[i] and told so (--nodes-by-rank), unbound (the
// members it starts use the whole node, packed by ssim), and a rank that ends or dies
// takes no other down (one lost node ends nothing else).
std::vector<std::string> mpirun_agent_command(const std::vector<std::string>& nodes,
                                              const std::vector<std::string>& program, bool is_root);
std::vector<std::string> aprun_command(const plan::Resources& res, const Placement& placement);
std::vector<std::string> jsrun_command(const plan::Resources& res, const Placement& placement);

}  // namespace ssim::launchers
