#pragma once
// Batch scripts for sbatch: #SBATCH directives from the job's request and options, then
// the common body (batch_job.hpp). Everything ssim puts in the script is quoted;
// `setup:` lines are shell by design and go in as written.
#include <string>

#include "launchers/batch/batch_job.hpp"

namespace ssim::launchers::slurm {

// Throws UsageError for a value that cannot go into a directive (newline, quote).
std::string sbatch_script(const BatchJob& job);

}  // namespace ssim::launchers::slurm
