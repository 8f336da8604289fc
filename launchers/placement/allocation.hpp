#pragma once
// An allocation: the scheduler job whose nodes ssim places steps on.
#include <map>
#include <string>
#include <vector>

namespace ssim::launchers {

struct Allocation {
  std::string job_id;
  std::vector<std::string> hosts;    // distinct, in the scheduler's order
  std::map<std::string, int> slots;  // tasks the scheduler gave each host, when it says
};

// Comma-separated names, for messages and host options (--nodelist, --host).
std::string join_hosts(const std::vector<std::string>& hosts);

// "h1\nh1\nh2\n" (PBS_NODEFILE, LSB_DJOB_HOSTFILE: one line per slot) -> hosts in order
// with their slot counts.
Allocation allocation_from_host_lines(const std::string& job_id, const std::string& text);

}  // namespace ssim::launchers
