#pragma once
// <run_dir>/.ssim-setup-failed: the setup line that failed, written by the step's own
// shell (lib/launch/setup_script.hpp) before it ends, so that the entity's note names the
// line rather than the program that never ran. The one owner of the format: the line's
// number, its exit code and its text on the first three lines, then what it printed on
// stderr.
#include <optional>
#include <string>

namespace ssim::state {

inline constexpr const char* kSetupFailedFile = ".ssim-setup-failed";
inline constexpr const char* kSetupStderrFile = ".ssim-setup.err";

struct SetupFailure {
  int line = 0;  // 1-based, among the step's setup lines (experiment's first)
  int exit_code = 0;
  std::string text;  // the line as written
  std::string said;  // the line of its stderr that says what went wrong, or ""
};

std::optional<SetupFailure> parse_setup_failure(const std::string& content);
// Of a failed line's stderr, the line that says what went wrong: the first naming an
// error (Lmod's "The following module(s) are unknown: ..." with what follows it), else
// the last that is not blank.
std::string setup_error_line(const std::string& stderr_text);
// "setup line 2 failed: module load X (exit 1): The following module(s) are unknown: "X"".
std::string describe(const SetupFailure& f);
// The record in `run_dir`, when its last start ended in a setup line.
std::optional<SetupFailure> read_setup_failure(const std::string& run_dir);
// Whether the setup lines of the last start in `run_dir` never finished: their stderr
// file is removed when they end, by the program's start or by the failure trap. Left
// behind, a line ended the step by `exec` (or the shell was killed): the program never ran.
bool setup_never_finished(const std::string& run_dir);
// The note for a step that ended with status 0 while its setup lines had not finished.
inline constexpr const char* kSetupEndedTheStep =
    "the setup lines ended the step before the program started (an exec in a setup line?)";

}  // namespace ssim::state
