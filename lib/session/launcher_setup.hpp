#pragma once
// The launcher a run uses, prepared for the plan: its allocation (the one ssim runs
// inside, or one requested for `allocation:` and released at the end) and placement.
#include <memory>
#include <string>

#include "lib/launch/launcher.hpp"
#include "lib/plan/plan.hpp"

namespace ssim::session {

struct RunLauncher {
  std::unique_ptr<launch::Launcher> launcher;
  std::string allocation_job;  // the scheduler's id of the allocation, if any
  bool owned = false;          // ssim requested it and releases it
};

// Checks that the plan fits where it will run (exit 2 when not: UsageError) and, when
// `request` is true, requests the allocation `allocation:` asks for (exit 3 when refused).
// With request false (dry runs, the check before generating), placement is computed on
// the current allocation or on placeholder nodes node1..nodeN (N from `allocation:`, or
// `placeholder_nodes` for the inside of `ssim run --batch`).
RunLauncher prepare_launcher(const plan::Plan& plan, bool request, int placeholder_nodes = 0);

// Renders every batch script the run would write (each `batch:` entity's), so that a
// value no script can carry is refused (UsageError) before anything is written.
void check_batch_scripts(const plan::Plan& plan, const launch::Launcher& launcher);

// The parts a run needs on this machine are here: ssim-supervise (every launcher runs
// steps under it), the scheduler's submit command when something is submitted, and,
// for what starts here, the database program (local) and each step's launch program
// (mpirun, srun, ...). `whole_batch`: `ssim run --batch`, where only submitting happens
// here. Throws EnvironmentError (exit 3) naming the part and where it was looked for.
void check_environment(const plan::Plan& plan, const launch::Launcher& launcher, bool whole_batch = false);

// On the local launcher, an entity asking for more GPUs (gpus_per_task x ntasks) than
// the pool ssim may use (engine/gpu_pool.hpp) could never start: UsageError (exit 2).
void check_gpus(const plan::Plan& plan, const launch::Launcher& launcher);

// Releases an allocation ssim made.
void release(const RunLauncher& launcher);

}  // namespace ssim::session
