#include "launchers/placement/allocation.hpp"
#include "lib/util/split.hpp"

#include <sstream>

namespace ssim::launchers {

std::string join_hosts(const std::vector<std::string>& hosts) { return join(hosts, ","); }

Allocation allocation_from_host_lines(const std::string& job_id, const std::string& text) {
  Allocation a;
  a.job_id = job_id;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    const size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos) continue;
    line = line.substr(start);
    if (a.slots[line]++ == 0) a.hosts.push_back(line);
  }
  return a;
}

}  // namespace ssim::launchers
