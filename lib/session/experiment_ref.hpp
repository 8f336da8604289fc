#pragma once
#include <string>
#include <utility>
#include <vector>

namespace ssim::session {

// EXP of docs/cli.md: an experiment directory, the YAML file it was run from, or (empty) the
// experiment most recently run from the current directory. Returns the absolute
// experiment directory; throws UsageError when there is none.
std::string resolve_experiment(const std::string& exp);

// `[EXP] NAME...` of stop and start: the first word names the experiment when it is a
// directory or file; otherwise all words are names in the experiment last run from here.
std::pair<std::string, std::vector<std::string>> split_experiment_and_names(const std::vector<std::string>& words);

}  // namespace ssim::session
