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
// This process's command line as a person would type it (arguments with spaces or
// shell characters in single quotes), from /proc/self/cmdline; "" when unreadable.
std::string own_command_line();
// The name of the user this process runs as (or its uid).
std::string user_name();

}  // namespace ssim
