#pragma once
// How the batch layer judges a job from its two witnesses: what the scheduler says, and
// what the supervisor beside the program wrote to the run directory. Pure.
#include <optional>

#include "lib/launch/launcher.hpp"
#include "lib/state/step_ends.hpp"

namespace ssim::launchers {
using namespace ssim::launch;

// What the step's tasks recorded themselves (ssim-supervise --record-step), and how
// many tasks it has.
struct StepWitness {
  state::StepEnds ends;
  int tasks = 1;
};
// How long a launch command's exit 0 waits for its tasks' records (or the scheduler's
// word) before the step is judged failed: a shared file system may show them late.
inline constexpr double kStepEndsWait = 30;
// How long a killed launch command (exit 128+n) waits for the scheduler's word before its
// own failure stands: an outside scancel of the step is the scheduler's to report.
inline constexpr double kKilledStepWait = 10;

// A step inside the allocation: its launch command runs under a local supervisor
// (`local`); `scheduler` is the scheduler's word on the step's own id, when it has one.
// A terminal scheduler state wins (cancelled stays cancelled when ssim stopped it);
// while the launch command still runs, the scheduler's pending/running stands. When the
// launch command ended and the scheduler lags behind, a failure stands; an exit 0 stands
// only when every task recorded a clean end (`in_step`; nullopt: the launch has no such
// record). A task's own failure is the step's; records still missing keep the step
// running for up to kStepEndsWait seconds after the launch command ended (`now`), then it
// fails: srun exits 0 after "Node failure" although the tasks there never ended. A launch
// command that was killed while the scheduler says the step runs waits up to
// kKilledStepWait for the scheduler's word (CANCELLED after an outside scancel).
JobStatus merge_step(const JobStatus& local, const std::optional<JobStatus>& scheduler,
                     const std::optional<StepWitness>& in_step = std::nullopt, double now = 0);

// A job of its own (a batch entity, the whole experiment): `wrapped` is what
// ssim-supervise --wrap wrote inside the job (nullopt: nothing yet). The program's own
// exit status wins once written; a job the scheduler does not know and that left no
// exit status is failed, never completed; a job the scheduler has not listed yet
// (accounting lag after submit) is pending.
JobStatus merge_job(const std::optional<JobStatus>& scheduler, const std::optional<JobStatus>& wrapped,
                    bool cancelled_by_ssim, const std::string& scheduler_name, const std::string& job_id);

}  // namespace ssim::launchers
