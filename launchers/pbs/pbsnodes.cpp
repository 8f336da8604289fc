#include "launchers/pbs/pbsnodes.hpp"

#include <sstream>

namespace ssim::launchers::pbs {

int smallest_node_cpus(const std::string& out) {
  std::istringstream in(out);
  std::string line;
  int smallest = 0;
  const std::string key = "resources_available.ncpus";
  while (std::getline(in, line)) {
    const size_t k = line.find(key);
    if (k == std::string::npos) continue;
    const size_t eq = line.find('=', k + key.size());
    if (eq == std::string::npos) continue;
    int cpus = 0;
    try {
      cpus = std::stoi(line.substr(eq + 1));
    } catch (const std::exception&) {
      continue;
    }
    if (cpus > 0 && (smallest == 0 || cpus < smallest)) smallest = cpus;
  }
  return smallest;
}

}  // namespace ssim::launchers::pbs
