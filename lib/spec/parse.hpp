#pragma once
#include <string>

#include "lib/spec/spec.hpp"

namespace ssim::spec {

// Parses and validates experiment text. `file` is used in messages; `base_dir` is the
// absolute directory that relative `files:` resolve against. Pure apart from checking
// that the listed files exist. Throws SpecError.
ExperimentSpec parse_experiment(const std::string& text, const std::string& file,
                                const std::string& base_dir);

// Reads FILE and calls parse_experiment. Throws SpecError (also for unreadable files).
ExperimentSpec load_experiment(const std::string& file);

}  // namespace ssim::spec
