#pragma once
// Where an experiment may live and what it may copy: checks on paths alone, before
// anything is written. An experiment directory is something `--overwrite` may clear,
// so it must never be a directory that holds the user's other work.
#include <string>

#include "lib/spec/spec.hpp"

namespace ssim::plan {

// Refuses (SpecError at experiment.path) the root, the home directory, and the YAML
// file's own directory or any directory above it.
void check_experiment_path(const spec::ExperimentSpec& spec, const std::string& path);

// Refuses files: sources that are "/" or that contain the experiment directory (copying
// them would copy the experiment into itself).
void check_file_sources(const spec::ExperimentSpec& spec, const std::string& path);

}  // namespace ssim::plan
