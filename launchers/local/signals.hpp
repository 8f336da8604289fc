#pragma once
// Signalling the processes ssim started, and only those. A pid read from a run
// directory's files is a lead: it is signalled only when the kernel confirms it belongs
// to the job (lib/util/job_process.hpp): started at the recorded time (never a later
// process given the same pid), and started for the job or by a process ssim trusts.
#include <chrono>
#include <span>
#include <string>
#include <vector>

namespace ssim::launchers {

// Sends `sig` to process group `pgid` if its leader started at `ticks` and belongs to the
// job in `run_dir` (`trusted`: processes whose descendants are the job's). With the leader
// gone, the group gets it when one of its members belongs to the job. With SIGTERM, also
// SIGCONT, so that a stopped program acts on it. Returns true when a signal was sent.
bool signal_group(int pgid, const std::string& ticks, int sig, const std::string& run_dir,
                  std::span<const int> trusted);

// The processes a job detached, as its supervisor recorded them in
// <run_dir>/.ssim-detached ("PID START_TICKS" lines): each that belongs to the job gets
// `sig` (and its group).
void signal_detached(const std::string& run_dir, int sig, std::span<const int> trusted);

// Where the job's record leads nowhere (it names a process that is not the job's, or
// none): `sig` to every process the kernel says was started for the job. Returns how many.
int signal_job_processes(const std::string& run_dir, int sig);

// This process is a child subreaper (ssim run): what a killed supervisor left behind
// was re-parented here. SIGTERM to those children (never to running copies of
// `supervisor_exe`, which end their own), SIGKILL after `grace`, and reap them.
void end_adopted_children(const std::string& supervisor_exe,
                          std::chrono::milliseconds grace = std::chrono::milliseconds(2000));

}  // namespace ssim::launchers
