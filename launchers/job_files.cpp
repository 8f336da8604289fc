// What a job's keeper and ssim's cancel leave in its run directory, read alike by every
// launcher (local, batch steps and jobs, node agents).
#include "launchers/job_files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include "lib/state/job_records.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/processes.hpp"

namespace ssim::launchers {
using namespace ssim::launch;
using state::Status;

std::string status_file(const std::string& run_dir) { return state::status_file_path(run_dir); }
std::string cancel_marker(const std::string& run_dir) { return state::cancel_marker_path(run_dir); }

std::optional<state::StatusFile> read_status(const std::string& run_dir, bool fresh) {
  return state::read_job_record(run_dir, fresh);
}

// The time ssim asked the job to stop (the cancel marker's), or 0.
double cancel_time(const std::string& run_dir) {
  if (!state::cancels_asked_in(run_dir)) return 0;  // nothing in its experiment was asked to stop
  struct stat st {};
  if (::stat(cancel_marker(run_dir).c_str(), &st) != 0) return 0;
  return static_cast<double>(st.st_mtim.tv_sec) + st.st_mtim.tv_nsec / 1e9;
}

void mark_cancelled(const std::string& run_dir) {
  if (::access(cancel_marker(run_dir).c_str(), F_OK) == 0) return;  // the earliest one stays
  state::note_cancel_in(run_dir);
  write_file_atomically(cancel_marker(run_dir), "");
}

// How a job ended. It counts as cancelled only when it ended after ssim asked it to
// stop: a member that had already exited 0 stays completed.
JobStatus from_exit(const state::StatusFile& j, double cancelled_at) {
  JobStatus s;
  s.start = j.start;
  s.end = j.end;
  s.pid = j.pid;
  s.nodes = j.node;
  s.exit_code = j.exit_code;
  s.signal = j.signal;
  s.reason = j.error;
  // Its keeper ended it because its node agent was lost: the node's loss is why, whoever
  // noticed first (the keeper, or ssim giving up on the node's silent agent).
  if (j.agent_lost && !j.node.empty()) s.reason = "node " + j.node + " lost: " + s.reason;
  const bool cancelled = cancelled_at > 0 && (s.end == 0 || s.end >= cancelled_at);
  if (cancelled) {
    s.status = Status::Cancelled;
    if (s.reason.empty()) s.reason = "stopped by ssim";
  } else if (j.time_limit_reached) {
    s.status = Status::Failed;  // even if it exited 0 on SIGTERM: it did not finish in time
    s.reason = "time limit (run.time) reached";
  } else if (s.exit_code && *s.exit_code == 0) {
    s.status = Status::Completed;
  } else {
    s.status = Status::Failed;
    if (s.signal && s.reason.empty())
      s.reason = std::string("killed by ") + signal_name(*s.signal);
    else if (s.exit_code && s.reason.empty())
      s.reason = "exit code " + std::to_string(*s.exit_code);
  }
  return s;
}

JobStatus status_from_file(const std::string& run_dir) {
  const auto j = read_status(run_dir);
  if (j && j->exited) return from_exit(*j, cancel_time(run_dir));
  JobStatus s;
  s.status = j ? Status::Running : Status::Pending;
  if (j) {
    s.start = j->start;
    s.pid = j->pid;
    s.nodes = j->node;
  }
  return s;
}

std::optional<JobStatus> read_job_status(const std::string& run_dir) {
  const auto j = read_status(run_dir);
  if (!j) return std::nullopt;
  if (j->exited) return from_exit(*j, 0);
  JobStatus s;
  s.status = Status::Running;
  s.pid = j->pid;
  s.start = j->start;
  s.nodes = j->node;
  return s;
}

}  // namespace ssim::launchers
