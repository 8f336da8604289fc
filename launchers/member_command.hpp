#pragma once
// A member's command line, built in one pass: what wraps the program is decided once
// (MemberWrapping), then applied in one fixed order, inside out
// (docs/dev/architecture.md "A member's command line"):
//
//   program args
//   -> container            the runtime and image      (lib/launch/container_command.hpp)
//   -> SmartRedis door      ssim-door, smartredis: true (apps/ssim-door)
//   -> colocated database   ssim-supervise --colocated-db (lib/launch/launcher.hpp task_program)
//   -> rank wrapper         ssim-supervise --rank      (ranks/rank_wrapper.hpp)
//   -> step recorder        ssim-supervise --record-step (the scheduler's step id)
//   -> rank launcher        srun, mpirun, mpiexec, aprun, jsrun, or none (ranks/rank_command.hpp)
//
// Outside them, added where the step is handed over: the setup lines (lib/launch
// step_argv), and for a batch job of its own, the job's wrapper and script.
#include <optional>
#include <string>
#include <vector>

#include "launchers/ranks/rank_command.hpp"
#include "launchers/ranks/rank_wrapper.hpp"

namespace ssim::launchers {

// Each task's end recorded beside the scheduler's id of its step (launchers/batch
// step witness): the recipe of the scheduler's step id, the folder of the record.
struct StepRecorder {
  std::string run_dir;
  std::string id_template;
  std::string rank_variable;
};

// `program` through `supervisor --record-step RUN_DIR/.ssim-step --id ... --`.
std::vector<std::string> through_step_recorder(const std::string& supervisor, const StepRecorder& recorder,
                                               const std::vector<std::string>& program);

struct MemberWrapping {
  std::optional<RankAddress> rank_wrapper;  // several ranks or torchrun: ssim's wiring
  std::optional<StepRecorder> recorder;     // a scheduler that names its steps
  RankLauncher launcher = RankLauncher::None;
  plan::Resources res;  // as placed (a grant's tasks per node)
  Placement placement;
  RankContext context;
};

// `step`'s command line (and what its launch command needs in its environment).
StepLaunch member_command(const plan::Step& step, const std::string& supervisor, const MemberWrapping& wrapping);

// The two outer wrappers alone, around what each task runs (`tasks`): the step recorder
// and the rank launcher. A database shard's command is its server's tasks through them.
StepLaunch through_rank_launcher(const std::string& name, const std::string& supervisor, const MemberWrapping& wrapping,
                                 std::vector<std::string> tasks);

}  // namespace ssim::launchers
