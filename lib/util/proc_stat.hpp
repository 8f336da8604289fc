#pragma once
// What /proc/PID/stat says about a process, and this host's name: what ssim records
// beside a pid so that the pid, once reused by another program, is never taken for it.
#include <string>
#include <vector>

namespace ssim {

// The fields after the command name: [0] is field 3 (state), [19] is field 22 (start
// time in clock ticks since boot). Empty when the process is gone.
std::vector<std::string> stat_fields(int pid);
// Field 22, or "" when the process is gone.
std::string start_ticks(int pid);
std::string host_name();

}  // namespace ssim
