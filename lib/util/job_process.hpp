#pragma once
// Whether a process named in a run directory's files may be signalled for that job.
//
// Those files (status, detached list) sit where the job's own program can write: their
// pids and start times are leads, never proof. The proof is what the kernel keeps and no
// other process can rewrite: a process belongs to a job when it started at the recorded
// time and it, or one of its ancestors, either carries the job's SSIM_RUN_DIR in the
// environment it was started with (/proc/PID/environ: every program ssim starts has it),
// or is a process the caller already trusts (itself, as the subreaper of what it started,
// or a supervisor confirmed as below). A stranger whose pid and start time were copied
// into the file has neither, and is left alone.
//
// Self-contained (libc and the standard library): ssim-supervise compiles it in.
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ssim {

// What /proc/PID/stat says: the fields a judgement needs.
struct ProcessFacts {
  int pid = 0;
  char state = '?';
  int parent = 0;
  int group = 0;
  std::string start_ticks;  // field 22: distinguishes a later process that reuses the pid
};
std::optional<ProcessFacts> process_facts(int pid);

// True when the environment `pid` was started with holds `entry` ("NAME=VALUE") exactly.
bool environ_holds(int pid, const std::string& entry);

// The program `pid` runs (/proc/PID/exe), or "" when it cannot be read.
std::string executable_of(int pid);

// The rule above. `ticks` empty: no start time was recorded, so the pid is not trusted
// (a record without one names nothing ssim can tell from a later process).
bool belongs_to_job(int pid, const std::string& ticks, const std::string& run_dir, std::span<const int> trusted);

// A supervisor (watcher, keeper) named in a job's status file: alive at `ticks`, running
// `supervisor_exe`, and either the supervisor the launcher recorded itself (`recorded`,
// from its own start, alive at `recorded_ticks`) or that supervisor's child.
bool is_job_supervisor(int pid, const std::string& ticks, const std::string& supervisor_exe, int recorded,
                       const std::string& recorded_ticks);

}  // namespace ssim
