#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace ssim::launchers::slurm {

// Expands a Slurm hostlist: "n[1-3,7],gpu[01-02]-ib,login" -> n1 n2 n3 n7 gpu01-ib
// gpu02-ib login. Ranges keep their zero padding; several bracket groups in one name
// multiply out. Throws std::invalid_argument for malformed input.
std::vector<std::string> expand_hostlist(const std::string& list);

// Expands SLURM_JOB_CPUS_PER_NODE: "32(x2),16" -> 32 32 16. Throws
// std::invalid_argument for malformed input.
std::vector<int> expand_counts(const std::string& list);

}  // namespace ssim::launchers::slurm
