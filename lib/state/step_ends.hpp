#pragma once
// <run_dir>/.ssim-step-ends: how each task of a scheduler's step ended, as the task
// itself saw it (ssim-supervise --record-step waits for its program and appends a line).
// It is the step's own witness beside the launch command's exit code: srun exits 0 after
// "Node failure" even though the tasks on that node never ended, so a step counts as
// completed only when every task recorded a clean end (or the scheduler says so). The
// one owner of the format: one line per task, "RANK CODE\n", CODE being the exit code or
// "sigN"; a line is one write() of a few bytes, appended.
#include <optional>
#include <string>

namespace ssim::state {

std::string step_ends_path(const std::string& run_dir);
// The line a task appends when its program ended (signal: 0 when it exited).
std::string encode_step_end(const std::string& rank, int exit_code, int signal);

struct StepEnds {
  int recorded = 0;                 // tasks that wrote their end
  std::optional<std::string> rank;  // the first task that did not end cleanly, if any
  std::optional<int> exit_code;     // its exit code...
  std::optional<int> signal;        // ...or the signal that ended it
};

// Lines that are not whole (a task cut off while writing) are not counted.
StepEnds parse_step_ends(const std::string& text);

}  // namespace ssim::state
