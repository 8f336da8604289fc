#include "launchers/batch/merge_status.hpp"

#include <csignal>

namespace ssim::launchers {
using namespace ssim::launch;

using state::Status;

static JobStatus merge_job_status(const std::optional<JobStatus>& scheduler, const std::optional<JobStatus>& wrapped,
                                  bool cancelled_by_ssim, const std::string& scheduler_name, const std::string& job_id);

namespace {

// The launch command exited 0 and the scheduler has not said how the step ended.
JobStatus judged_by_its_tasks(JobStatus local, const StepWitness& in_step, double now) {
  const auto& ends = in_step.ends;
  if (ends.rank) {  // a task failed, whatever the launch command said
    local.status = Status::Failed;
    local.exit_code = ends.exit_code;
    local.signal = ends.signal;
    local.reason = "task " + *ends.rank +
                   (ends.signal ? " was killed by signal " + std::to_string(*ends.signal)
                                : " exited with code " + std::to_string(*ends.exit_code));
    return local;
  }
  if (ends.recorded >= in_step.tasks) return local;  // every task ended cleanly
  const std::string missing = std::to_string(ends.recorded) + " of " + std::to_string(in_step.tasks) + " tasks";
  if (local.end > 0 && now - local.end < kStepEndsWait) {
    local.status = Status::Running;  // the records may be on their way
    local.reason = "the launch command exited 0; waiting for its tasks' records (" + missing + " so far)";
    return local;
  }
  local.status = Status::Failed;
  local.exit_code.reset();
  local.reason = "the launch command exited 0, but only " + missing +
                 " recorded an end (a node failure?): not counted as completed";
  return local;
}

}  // namespace

JobStatus merge_step(const JobStatus& local_status, const std::optional<JobStatus>& scheduler,
                     const std::optional<StepWitness>& in_step, double now) {
  // The local supervisor runs the launch command (srun, mpirun) on this host, not where
  // the step runs: only the scheduler can say which nodes.
  JobStatus local = local_status;
  local.nodes.clear();
  const bool scheduler_ended =
      scheduler && scheduler->status != Status::Unknown && state::is_terminal(scheduler->status);
  if (!scheduler_ended && in_step && local.status == Status::Completed)
    local = judged_by_its_tasks(local, *in_step, now);
  // The launch command was killed while the scheduler has not said the step ended (not
  // recorded yet, or still running): an outside scancel is the scheduler's to report.
  // (the launch command's own end, not a task's recorded failure, which stands as it is)
  const bool killed = local_status.signal || (local_status.exit_code && *local_status.exit_code > 128);
  if (!scheduler_ended && local.status == Status::Failed && killed && local.end > 0 &&
      now - local.end < kKilledStepWait) {
    JobStatus waiting = local;
    waiting.status = Status::Running;
    waiting.end = 0;
    waiting.reason =
        "its launch command was killed (" +
        (local.signal ? "signal " + std::to_string(*local.signal) : "exit code " + std::to_string(*local.exit_code)) +
        "); waiting for the scheduler's word on the step";
    waiting.exit_code.reset();
    waiting.signal.reset();
    return waiting;
  }
  if (!scheduler || scheduler->status == Status::Unknown) return local;
  JobStatus a = *scheduler;
  a.native_id = local.native_id;
  a.pid = local.pid;
  a.start = local.start;
  a.end = local.end;
  if (state::is_terminal(a.status)) {
    if (local.status == Status::Cancelled) {
      a.status = Status::Cancelled;  // ssim stopped it
    } else if (a.status == Status::Cancelled && in_step && in_step->ends.signal == SIGKILL) {
      // Slurm calls a step CANCELLED when one of its tasks was SIGKILLed (the OOM killer's
      // signal); its own record, first of the failures, says what happened: a failure,
      // which retries: rerun. (An outside scancel ends tasks with SIGTERM first.)
      JobStatus failed = judged_by_its_tasks(local, *in_step, now);
      failed.status = Status::Failed;
      failed.native_id = a.native_id;
      failed.nodes = a.nodes;
      failed.reason += " (SIGKILL: the out-of-memory killer, or a kill -9)";
      return failed;
    }
    return a;
  }
  if (!state::is_terminal(local.status)) return a;  // running or pending, per the scheduler
  return local;  // the launch command ended and the scheduler lags behind: its code stands
}

JobStatus merge_job(const std::optional<JobStatus>& scheduler, const std::optional<JobStatus>& wrapped,
                    bool cancelled_by_ssim, const std::string& scheduler_name, const std::string& job_id) {
  JobStatus s = merge_job_status(scheduler, wrapped, cancelled_by_ssim, scheduler_name, job_id);
  // Where: the scheduler names every host of the job; the supervisor only its own.
  if (scheduler && !scheduler->nodes.empty()) s.nodes = scheduler->nodes;
  return s;
}

static JobStatus merge_job_status(const std::optional<JobStatus>& scheduler, const std::optional<JobStatus>& wrapped,
                                  bool cancelled_by_ssim, const std::string& scheduler_name,
                                  const std::string& job_id) {
  JobStatus s;
  if (wrapped && state::is_terminal(wrapped->status)) {
    s = *wrapped;
    if (cancelled_by_ssim) {
      s.status = Status::Cancelled;
      if (s.reason.empty()) s.reason = "stopped by ssim";
    } else if (scheduler && scheduler->status == Status::Cancelled && s.status == Status::Failed) {
      // Cancelled from outside (scancel, qdel, bkill): the program then ended by the signal
      // it was sent, or as ssim ends on SIGTERM; the scheduler's word is what happened.
      s.status = Status::Cancelled;
      s.reason = scheduler->reason.empty() ? "cancelled by " + scheduler_name : scheduler->reason;
      s.exit_code.reset();
    } else if (scheduler && state::is_terminal(scheduler->status) && s.status == Status::Failed &&
               !scheduler->reason.empty() && s.signal) {
      s.reason = scheduler->reason;  // killed by the scheduler: say why (time limit, ...)
    }
    return s;
  }
  if (scheduler && scheduler->status != Status::Unknown) {
    s = *scheduler;
    if (state::is_terminal(s.status) && cancelled_by_ssim) {
      s.status = Status::Cancelled;
      s.reason = "stopped by ssim";
    }
    if (wrapped && wrapped->start > 0) s.start = wrapped->start;
    return s;
  }
  if (scheduler) {  // the scheduler says it does not know the job
    s.status = cancelled_by_ssim ? Status::Cancelled : Status::Failed;
    s.reason = cancelled_by_ssim ? "stopped by ssim"
                                 : scheduler_name + " no longer knows job " + job_id +
                                       (wrapped ? " and the job left no exit status"
                                                : ", which never started (deleted while queued?)") +
                                       (scheduler->reason.empty() ? "" : " (" + scheduler->reason + ")");
    return s;
  }
  // Not listed yet: submitted a moment ago.
  s.status = wrapped && wrapped->status == Status::Running ? Status::Running : Status::Pending;
  if (wrapped) s.start = wrapped->start;
  return s;
}

}  // namespace ssim::launchers
