#include "launchers/batch/step_commands.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "lib/state/rank_ends.hpp"
#include "lib/util/file_tail.hpp"

namespace ssim::launchers {
using namespace ssim::launch;
using state::Status;

void StepCommands::index(const plan::Plan& plan) {
  const PlacementPlan& placed = allocation_.placement();
  steps_.clear();
  for (const auto& s : plan.steps) {
    StepInfo i{s.program->res, {}, s.program->setup};
    if (const auto p = placed.steps.find(s.name); p != placed.steps.end()) i.placement = p->second;
    steps_[s.name] = i;
  }
  if (plan.database) interface_ = plan.database->interface;
  if (plan.database) database_ = StepInfo{plan.database->res, {}, plan.setup};
}

const StepInfo* StepCommands::info(const std::string& name) const {
  const auto it = steps_.find(name);
  return it == steps_.end() ? nullptr : &it->second;
}

StepInfo StepCommands::of(const std::string& name) const {
  if (const StepInfo* i = info(name)) return *i;
  StepInfo shard = database_;  // its placement by the order of shard run directories
  const auto& placed = allocation_.placement().database;
  for (size_t s = 0; s < placed.size(); ++s)
    if (name == "orchestrator" || name == "orchestrator_" + std::to_string(s)) shard.placement = placed[s];
  return shard;
}

RankLauncher StepCommands::launcher_for(const plan::Resources& res, const Placement& placement) const {
  const RankLauncher fallback = scheduler_.default_rank_launcher(res);
  const RankLauncher l = rank_launcher_for(res.mpi, fallback);
  // Alone in a job of its own, a single task needs no launcher to reach its host.
  const bool plain_ok = res.mpi == plan::MpiKind::Auto || res.mpi == plan::MpiKind::None;
  if (placement.nodes.empty() && res.ntasks == 1 && plain_ok && l != RankLauncher::Srun) return RankLauncher::None;
  return l;
}

MemberWrapping StepCommands::wrapping_for(const StepInfo& i, const std::string& run_dir,
                                          std::vector<std::string> forward) const {
  MemberWrapping w;
  w.launcher = launcher_for(i.res, i.placement);
  w.res = i.res;
  w.placement = i.placement;
  w.context = RankContext{i.placement.nodes.empty() ? "" : allocation_.id(), ::geteuid() == 0};
  w.context.forward = std::move(forward);
  if (i.placement.nodes.empty()) w.context.hostfile_variable = scheduler_.job_hostfile_variable();
  w.context.mpirun_nodes = scheduler_.mpirun_nodes();
  if (const auto recipe = scheduler_.step_id_recipe())
    w.recorder = StepRecorder{run_dir, recipe->id_template, recipe->rank_variable};
  return w;
}

std::vector<std::string> StepCommands::command(const plan::Step& step, const StepInfo& i) const {
  // What ssim gives the step, and the PATH its setup lines leave, reach its ranks on every
  // node (docs/launchers.md "What a step inherits").
  std::vector<std::string> forward;
  auto add = [&](const std::string& name) {
    if (std::find(forward.begin(), forward.end(), name) == forward.end()) forward.push_back(name);
  };
  for (const auto& [k, v] : plan::launch_env(step, "", 1)) add(k);  // names only
  add("PATH");
  add("PYTHONPATH");
  if (std::getenv("LD_LIBRARY_PATH")) add("LD_LIBRARY_PATH");  // -x of an unset one makes mpirun warn
  MemberWrapping w = wrapping_for(i, step.run_dir, std::move(forward));
  // Several ranks get their wiring from the rank wrapper; a lone one has it in its
  // environment (plan::step_env).
  if (i.res.wrapped_ranks()) w.rank_wrapper = RankAddress{false, interface_};
  return member_command(step, supervisor_, w).argv;
}

std::vector<std::string> StepCommands::database_command(int shard, const std::string& run_dir,
                                                        const std::vector<std::string>& inner) const {
  StepInfo i = database_;
  if (shard < static_cast<int>(allocation_.placement().database.size()))
    i.placement = allocation_.placement().database[shard];
  return through_rank_launcher("orchestrator", supervisor_, wrapping_for(i, run_dir), inner).argv;
}

plan::Env StepCommands::launch_env(const std::string& name, const std::string& run_dir) const {
  return through_rank_launcher(name, supervisor_, wrapping_for(of(name), run_dir), {}).env;
}

std::optional<StepWitness> StepCommands::witness(const JobRef& job, const JobStatus& launch,
                                                 const std::optional<JobStatus>& scheduler) const {
  const bool cancelled_by_other =
      scheduler && scheduler->status == Status::Cancelled && launch.status != Status::Cancelled;
  if ((launch.status != Status::Completed && !cancelled_by_other) || !scheduler_.step_id_recipe()) return std::nullopt;
  const auto* step = info(job.name);
  StepWitness w;
  w.tasks = step ? std::max(1, step->res.ntasks) : 1;
  w.ends = state::parse_step_ends(read_run_file(state::step_ends_path(job.run_dir)).value_or(""));
  return w;
}

}  // namespace ssim::launchers
