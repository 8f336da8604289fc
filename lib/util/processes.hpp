#pragma once
// Small facts about local processes, read from /proc.
#include <string>
#include <vector>

#include "lib/util/proc_stat.hpp"  // start_ticks

namespace ssim {

// True when `pid` exists (zombies excluded) and, if `start_ticks` is not empty, started
// at that time (field 22 of /proc/PID/stat), i.e. is not a later process reusing the pid.
bool process_alive(int pid, const std::string& start_ticks);
// True when /proc/PID exists (zombies included).
bool process_exists(int pid);
// The pids whose parent is this process (every thread's children).
std::vector<int> children_of_self();
// True when any process is left in process group `pgid`.
bool group_alive(int pgid);
// Pids of the processes whose environment holds NAME=VALUE exactly (not this process).
std::vector<int> processes_with_env(const std::string& name, const std::string& value);
// "SIGSEGV" for 11, etc.
std::string signal_name(int sig);

}  // namespace ssim
