#pragma once
#include <string>

namespace ssim::session {

// EXP of docs/cli.md: an experiment directory, the YAML file it was run from, or (empty) the
// experiment most recently run from the current directory. Returns the absolute
// experiment directory; throws UsageError when there is none.
std::string resolve_experiment(const std::string& exp);

}  // namespace ssim::session
