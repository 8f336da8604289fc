#pragma once
#include <string>
#include <string_view>

#include "lib/spec/spec.hpp"

namespace ssim::spec {

// Parses and validates experiment text. `file` is used in messages; `base_dir` is the
// absolute directory that relative `files:` resolve against. Pure apart from checking
// that the listed files exist. Throws SpecError.
ExperimentSpec parse_experiment(std::string_view text, const std::string& file, const std::string& base_dir,
                                const ParseOptions& options = {});

// Reads FILE and calls parse_experiment. Throws SpecError (also for unreadable files).
// Files over kMaxFileBytes are refused before they are read.
ExperimentSpec load_experiment(const std::string& file, const ParseOptions& options = {});

}  // namespace ssim::spec
