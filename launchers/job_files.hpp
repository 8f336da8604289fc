#pragma once
// What a job's keeper and ssim's cancel leave in its run directory (docs/layout.md), and
// how a launcher reads a job's fate from them. One place for the local launcher, batch
// steps and jobs, and node agents.
#include <optional>
#include <string>

#include "lib/launch/launcher.hpp"
#include "lib/state/status_file.hpp"

namespace ssim::launchers {

// Files ssim and a batch job's wrapper leave in a run directory (a keeper records a job
// in its journal instead).
std::string status_file(const std::string& run_dir);
std::string cancel_marker(const std::string& run_dir);
// What the supervisor wrote in `run_dir` (running, or how the program ended), read
// without asking whether the supervisor lives; nullopt when it wrote nothing (readable).
std::optional<launch::JobStatus> read_job_status(const std::string& run_dir);
// The job's status from its files alone (a supervisor on another host, or a node's
// agent): how it ended (a stop asked before it ended makes it cancelled), else running
// once its status file exists, else pending.
launch::JobStatus status_from_file(const std::string& run_dir);
// What its keeper recorded of the job's latest launch, or its status file (state/
// job_records.hpp); nullopt when there is none yet. `fresh`: read the keepers' journals
// whatever their pace (before concluding that a job's keeper left no record).
std::optional<state::StatusFile> read_status(const std::string& run_dir, bool fresh = false);
// When ssim asked the job to stop (the cancel marker's time), or 0.
double cancel_time(const std::string& run_dir);
// Leaves the marker (the earliest stays), after noting in its experiment that a job was
// asked to stop (lib/state/job_records.hpp): every launcher's one way to write it.
void mark_cancelled(const std::string& run_dir);
// How a job ended, by its status record: cancelled only when it ended after ssim asked
// (`cancelled_at`, 0: never asked), a member that had exited 0 stays completed.
launch::JobStatus from_exit(const state::StatusFile& j, double cancelled_at);

}  // namespace ssim::launchers
