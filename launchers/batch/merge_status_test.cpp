#include <catch2/catch.hpp>

#include "launchers/batch/merge_status.hpp"

using namespace ssim::launchers;
using ssim::state::Status;

namespace {
JobStatus srun_exited(int code, double end) {
  JobStatus s;
  s.status = code == 0 ? Status::Completed : Status::Failed;
  s.exit_code = code;
  s.end = end;
  return s;
}
StepWitness tasks(int expected, const std::string& lines) { return {ssim::state::parse_step_ends(lines), expected}; }
JobStatus said(Status status) {
  JobStatus s;
  s.status = status;
  return s;
}
}  // namespace

TEST_CASE("step merge: srun's exit 0 counts only when every task recorded a clean end") {
  const auto done = srun_exited(0, 100);
  CHECK(merge_step(done, std::nullopt, tasks(2, "0 0\n1 0\n"), 101).status == Status::Completed);
  CHECK(merge_step(done, said(Status::Running), tasks(2, "0 0\n1 0\n"), 101).status == Status::Completed);
  // Records missing: running (the file system may be late), then failed with the reason.
  const auto waiting = merge_step(done, std::nullopt, tasks(4, "0 0\n1 0\n"), 101);
  CHECK(waiting.status == Status::Running);
  const auto lost = merge_step(done, std::nullopt, tasks(4, "0 0\n1 0\n"), 100 + kStepEndsWait + 1);
  CHECK(lost.status == Status::Failed);
  CHECK(lost.reason.find("only 2 of 4 tasks recorded an end") != std::string::npos);
  CHECK(!lost.exit_code);
}

TEST_CASE("step merge: a task's own failure is the step's even when srun exited 0") {
  const auto s = merge_step(srun_exited(0, 100), std::nullopt, tasks(2, "0 0\n1 sig9\n"), 100.5);
  CHECK(s.status == Status::Failed);
  CHECK(s.signal == 9);
  CHECK(s.reason == "task 1 was killed by signal 9");
  const auto code = merge_step(srun_exited(0, 100), std::nullopt, tasks(1, "0 3\n"), 100.5);
  CHECK(code.exit_code == 3);
}

TEST_CASE("step merge: the scheduler's terminal word still wins, and a failure of srun stands") {
  JobStatus node_fail = said(Status::Failed);
  node_fail.reason = "node failure (NODE_FAIL)";
  const auto s = merge_step(srun_exited(0, 100), node_fail, tasks(1, ""), 100.5);
  CHECK(s.status == Status::Failed);
  CHECK(s.reason == "node failure (NODE_FAIL)");
  CHECK(merge_step(srun_exited(0, 100), said(Status::Completed), tasks(1, "0 0\n"), 101).status == Status::Completed);
  CHECK(merge_step(srun_exited(2, 100), std::nullopt, tasks(1, ""), 101).exit_code == 2);
  // No recording wrapper (no witness): the launch command's code, as before.
  CHECK(merge_step(srun_exited(0, 100), std::nullopt).status == Status::Completed);
}

TEST_CASE("step merge: a task SIGKILLed (the OOM killer) fails the step that Slurm calls cancelled") {
  JobStatus cancelled = said(Status::Cancelled);
  cancelled.reason = "CANCELLED";
  const auto s = merge_step(srun_exited(137, 100), cancelled, tasks(4, "0 sig15\n"), 101);
  CHECK(s.status == Status::Cancelled);  // SIGTERM first: an outside scancel stays cancelled
  const auto k = merge_step(srun_exited(137, 100), cancelled, tasks(4, "2 sig9\n0 sig15\n1 sig15\n"), 101);
  CHECK(k.status == Status::Failed);
  CHECK(k.signal == 9);
  CHECK(k.reason == "task 2 was killed by signal 9 (SIGKILL: the out-of-memory killer, or a kill -9)");
  // ssim's own stop stays a stop, whatever the tasks recorded.
  JobStatus stopped = srun_exited(137, 100);
  stopped.status = Status::Cancelled;
  CHECK(merge_step(stopped, cancelled, tasks(4, "2 sig9\n"), 101).status == Status::Cancelled);
}

TEST_CASE("step merge: a killed launch command waits a moment for the scheduler's cancelled") {
  const auto killed = srun_exited(137, 100);  // mpirun or srun ended by an outside scancel
  const auto waiting = merge_step(killed, said(Status::Running), std::nullopt, 101);
  CHECK(waiting.status == Status::Running);
  CHECK(waiting.reason.find("exit code 137") != std::string::npos);
  CHECK(merge_step(killed, std::nullopt, std::nullopt, 101).status == Status::Running);  // not recorded yet
  JobStatus cancelled = said(Status::Cancelled);
  cancelled.reason = "CANCELLED by 0";
  CHECK(merge_step(killed, cancelled, std::nullopt, 102).status == Status::Cancelled);
  // The scheduler never says: the launch command's failure stands.
  CHECK(merge_step(killed, said(Status::Running), std::nullopt, 100 + kKilledStepWait + 1).status == Status::Failed);
  CHECK(merge_step(srun_exited(3, 100), said(Status::Running), std::nullopt, 101).status == Status::Failed);
}

TEST_CASE("job merge: a job cancelled from outside reads cancelled with the scheduler's words") {
  JobStatus ssim_ended = srun_exited(1, 100);  // the run inside ended on SIGTERM: exit 1
  ssim_ended.status = Status::Failed;
  JobStatus cancelled = said(Status::Cancelled);
  cancelled.reason = "CANCELLED by 1000";
  const auto s = merge_job(cancelled, ssim_ended, false, "slurm", "7");
  CHECK(s.status == Status::Cancelled);
  CHECK(s.reason == "CANCELLED by 1000");
  CHECK(!s.exit_code);
  // The scheduler's failure (not a cancel) leaves the job's own record as it was.
  CHECK(merge_job(said(Status::Failed), ssim_ended, false, "slurm", "7").status == Status::Failed);
}
