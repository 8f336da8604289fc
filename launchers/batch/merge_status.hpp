#pragma once
// How the batch layer judges a job from its two witnesses: what the scheduler says, and
// what the supervisor beside the program wrote to the run directory. Pure.
#include <optional>

#include "lib/launch/launcher.hpp"

namespace ssim::launchers {
using namespace ssim::launch;

// A step inside the allocation: its launch command runs under a local supervisor
// (`local`); `scheduler` is the scheduler's word on the step's own id, when it has one.
// A terminal scheduler state wins (cancelled stays cancelled when ssim stopped it);
// while the launch command still runs, the scheduler's pending/running stands; when the
// launch command ended and the scheduler lags behind, the launch command's code stands.
JobStatus merge_step(const JobStatus& local, const std::optional<JobStatus>& scheduler);

// A job of its own (a batch entity, the whole experiment): `wrapped` is what
// ssim-supervise --wrap wrote inside the job (nullopt: nothing yet). The program's own
// exit status wins once written; a job the scheduler does not know and that left no
// exit status is failed, never completed; a job the scheduler has not listed yet
// (accounting lag after submit) is pending.
JobStatus merge_job(const std::optional<JobStatus>& scheduler, const std::optional<JobStatus>& wrapped,
                    bool cancelled_by_ssim, const std::string& scheduler_name, const std::string& job_id);

}  // namespace ssim::launchers
