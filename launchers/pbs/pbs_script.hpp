#pragma once
// qsub scripts for PBS Pro / OpenPBS: #PBS -N -q -A, -l select=N:ncpus=C:mpiprocs=P
// [:ngpus=G], -l walltime, -l place=scatter[:excl], -W depend=afterok:, -o -e, options as
// "#PBS -KEY VALUE" (chunk resources in options' l: join the select), -k oed (output
// written live), then the common body (which cds: PBS starts jobs in $HOME).
#include <string>

#include "launchers/batch/batch_job.hpp"

namespace ssim::launchers::pbs {

// qsub refuses job names over 230 characters ("Job name is too long").
inline constexpr size_t kMaxJobName = 230;
// `name`, or when too long its head and a hash of the whole (unique, stable).
std::string pbs_job_name(const std::string& name);

// Throws UsageError for a value a directive cannot hold.
std::string pbs_script(const BatchJob& job);

}  // namespace ssim::launchers::pbs
