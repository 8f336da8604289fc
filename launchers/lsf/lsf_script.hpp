#pragma once
// Scripts for bsub (read on its standard input, so the #BSUB lines count whatever
// LSB_BSUB_PARSE_SCRIPT says): -J -q -P, -W [HH:]MM, -nnodes N on CSM systems (jsrun)
// or -n slots with -R "span[ptile=P]" elsewhere, -gpu, -x for whole nodes,
// -w "done(ID)" for dependencies, -o -e -cwd, options as "#BSUB -KEY VALUE".
#include <string>

#include "launchers/batch/batch_job.hpp"

namespace ssim::launchers::lsf {

// Throws std::invalid_argument for a value a directive cannot hold.
std::string lsf_script(const BatchJob& job, bool csm);

}  // namespace ssim::launchers::lsf
