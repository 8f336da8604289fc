#pragma once
// Readers for the sections of the experiment file, shared by parse*.cpp.
#include "lib/spec/yaml_reader.hpp"

namespace ssim::spec {

RunSettings read_run(const YamlReader& r, const YAML::Node& node, const std::string& field);
BatchSettings read_batch(const YamlReader& r, const YAML::Node& node, const std::string& field,
                         bool allow_setup);
Orchestrator read_orchestrator(const YamlReader& r, const YAML::Node& node,
                               const std::string& field);
Entity read_entity(const YamlReader& r, const YAML::Node& node, const std::string& field,
                   EntityKind kind);
// Cross-entity checks: unique names, after/incoming targets, cycles, $(name) references,
// listed files exist.
void validate_experiment(const YamlReader& r, const ExperimentSpec& spec);

}  // namespace ssim::spec
