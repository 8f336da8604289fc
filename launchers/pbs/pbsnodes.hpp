#pragma once
// Reading `pbsnodes -a` (OpenPBS / PBS Pro), pure.
#include <string>

namespace ssim::launchers::pbs {

// The smallest resources_available.ncpus of the hosts listed, or 0 when none says.
int smallest_node_cpus(const std::string& pbsnodes_out);

}  // namespace ssim::launchers::pbs
