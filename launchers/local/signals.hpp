#pragma once
// Signalling the processes ssim started, and only those: every pid ssim keeps comes
// with the process's start time, and nothing is signalled whose start time differs (a
// pid the system has since given to another program).
#include <chrono>
#include <string>
#include <vector>

namespace ssim::launchers {

// Sends `sig` to process group `pgid` if its leader is the process that started at
// `ticks` (or, with the leader gone, if the group still exists: the kernel does not
// reuse a pid while a group carries it). With SIGTERM, also SIGCONT, so that a stopped
// program acts on it. Returns true when a signal was sent.
bool signal_group(int pgid, const std::string& ticks, int sig);

// The processes a job detached, as its supervisor recorded them in
// <run_dir>/.ssim-detached ("PID START_TICKS" lines): each gets `sig` (and its group).
void signal_detached(const std::string& run_dir, int sig);

// This process is a child subreaper (ssim run): what a killed supervisor left behind
// was re-parented here. SIGTERM to those children (never to running copies of
// `supervisor_exe`, which end their own), SIGKILL after `grace`, and reap them.
void end_adopted_children(const std::string& supervisor_exe,
                          std::chrono::milliseconds grace = std::chrono::milliseconds(2000));

}  // namespace ssim::launchers
