#pragma once
// qsub scripts for PBS Pro / OpenPBS: #PBS -N -q -A, -l select=N:ncpus=C:mpiprocs=P
// [:ngpus=G], -l walltime, -l place=scatter[:excl], -W depend=afterok:, -o -e, options as
// "#PBS -KEY VALUE", then the common body (which cds: PBS starts jobs in $HOME).
#include <string>

#include "launchers/batch/batch_job.hpp"

namespace ssim::launchers::pbs {

// Throws UsageError for a value a directive cannot hold.
std::string pbs_script(const BatchJob& job);

}  // namespace ssim::launchers::pbs
