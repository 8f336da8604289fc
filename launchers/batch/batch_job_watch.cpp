#include "launchers/batch/batch_job_watch.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include "launchers/batch/merge_status.hpp"
#include "launchers/job_files.hpp"
#include "lib/util/atomic_file.hpp"

namespace ssim::launchers {
using namespace ssim::launch;
using state::Status;

namespace {
// When `dir` last changed (a file made or replaced there), on the steady clock whose now
// is `now` (the wall clock's: `wall_now`); `now` when it cannot be read or is in the future.
std::chrono::steady_clock::time_point last_change(const std::string& dir, std::chrono::steady_clock::time_point now,
                                                  double wall_now) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return now;
  const double ago = wall_now - (static_cast<double>(st.st_mtim.tv_sec) + st.st_mtim.tv_nsec / 1e9);
  if (ago <= 0) return now;
  return now - std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(ago));
}
}  // namespace

JobStatus BatchJobWatch::status(const std::string& id, const std::string& run_dir,
                                const std::optional<JobStatus>& scheduler, std::vector<std::string>& never) {
  const bool cancelled = ::access(cancel_marker(run_dir).c_str(), F_OK) == 0;
  const auto wrapped = read_job_status(run_dir);
  JobStatus s = merge_job(scheduler, wrapped, cancelled, scheduler_.name(), id);
  if (scheduler && scheduler->status == Status::Unknown && !cancelled &&
      !(wrapped && state::is_terminal(wrapped->status))) {
    // Not listed: it ended a moment ago and its status file is on its way, or the
    // scheduler forgets ended jobs (PBS without history). Never failed on one answer.
    // A job that never started has nothing on its way: its grace runs from the last
    // change of its folder (the submission), so that a reader asking once (ssim
    // status) sees a job deleted while queued go instead of pending for ever.
    const auto now = clock_->steady();
    const auto seen = unlisted_since_.emplace(id, now).first->second;
    const auto since = wrapped ? seen : std::min(seen, last_change(run_dir, now, clock_->now()));
    if (now - since < kUnlistedGrace) {
      s.status = wrapped && wrapped->status == Status::Running ? Status::Running : Status::Pending;
      s.reason = "not listed by " + scheduler_.status_command({id})[0] + "; waiting for its status file";
      if (wrapped) s.start = wrapped->start;
    }
  } else {
    unlisted_since_.erase(id);
  }
  if (s.status == Status::Pending && scheduler && scheduler->never_runs && !cancelled) {
    // Waiting would be for ever: the job goes, and says why.
    s.status = Status::Failed;
    s.reason = scheduler_.name() + kNeverRuns + scheduler->never_reason;
    state::StatusFile never_ran;
    never_ran.exited = true, never_ran.error = s.reason;
    write_file_atomically(status_file(run_dir), state::encode_status_file(never_ran));
    never.push_back(id);
  }
  s.native_id = id;
  return s;
}

}  // namespace ssim::launchers
