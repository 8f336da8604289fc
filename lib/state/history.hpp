#pragma once
// Which experiments were run from which directory, so `ssim status` with no argument
// finds "the experiment most recently run from the current directory" (docs/cli.md).
// One JSON object per line in $SSIM_STATE_HOME/history (default ~/.local/state/ssim).
#include <optional>
#include <string>
#include <vector>

namespace ssim::state {

void record_run(const std::string& cwd, const std::string& file, const std::string& path);
// The latest experiment path run from `cwd`, or from the YAML file `file`.
std::optional<std::string> latest_from_cwd(const std::string& cwd);
std::optional<std::string> latest_from_file(const std::string& file);
// Every experiment path in the history, the most recently run first, each once.
std::vector<std::string> experiment_paths();

}  // namespace ssim::state
