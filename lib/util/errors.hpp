#pragma once
// Error kinds that map to ssim's exit codes (docs/cli.md, Exit codes). The library throws
// them; apps/ssim turns them into one line on stderr and the exit code.
#include <stdexcept>

namespace ssim {

// Exit code 2: the user asked for something that cannot be done (bad arguments,
// an experiment that does not exist, a run already in progress). Nothing was started.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Exit code 3: the environment failed (a launcher command is missing, the database
// did not come up, the scheduler refused a job).
struct EnvironmentError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace ssim
