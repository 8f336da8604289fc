#pragma once
// An experiment file as JSON, key for key as written (for the Python experiment API's
// Experiment.from_yaml, through `ssim validate --json --document`). Plain scalars get
// their YAML 1.2 core type (null, bool, int, float), quoted ones stay strings.
#include <string>

#include <nlohmann/json.hpp>

namespace ssim::spec {

// Call once the file has passed load_experiment (size, depth and syntax are checked there).
nlohmann::ordered_json document_json(const std::string& file);

}  // namespace ssim::spec
