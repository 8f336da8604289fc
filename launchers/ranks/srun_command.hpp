#pragma once
#include <string>
#include <vector>

#include "launchers/placement/placement.hpp"
#include "lib/plan/plan.hpp"

namespace ssim::launchers {

// srun --jobid=J --job-name=NAME --nodelist=... --nodes=N --ntasks=n [options]
// [--overlap] [--mpi=pmix] [launcher_args] PROGRAM...: one step of the allocation.
// `program` is what runs in each task (the step's command, wrapped by ssim-supervise
// --record-step so the step writes down its own job.step id).
std::vector<std::string> srun_command(const std::string& job_id, const std::string& name, const plan::Resources& res,
                                      const Placement& placement, const std::vector<std::string>& program);

}  // namespace ssim::launchers
