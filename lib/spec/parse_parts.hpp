#pragma once
// Readers for the sections of the experiment file, shared by parse*.cpp.
#include "lib/spec/yaml_reader.hpp"

namespace ssim::spec {

RunSettings read_run(const YamlReader& r, const YAML::Node& node, const std::string& field);
BatchSettings read_batch(const YamlReader& r, const YAML::Node& node, const std::string& field, bool allow_setup);
ColocatedDb read_colocated_db(const YamlReader& r, const YAML::Node& node, const std::string& field);
Container read_container(const YamlReader& r, const YAML::Node& node, const std::string& field, bool allow_none);
Orchestrator read_orchestrator(const YamlReader& r, const YAML::Node& node, const std::string& field);
Entity read_entity(const YamlReader& r, const YAML::Node& node, const std::string& field, EntityKind kind,
                   const std::string& base_dir);
// Cross-entity checks: unique names, after/incoming targets, cycles, $(name) references,
// listed files exist.
void validate_experiment(const YamlReader& r, const ExperimentSpec& spec, const ParseOptions& options);
// The YAML documents of `text`; a syntax error becomes a SpecError at the place a person
// would look (where an unclosed bracket opened), and nesting deeper than kMaxDepth is
// refused before yaml-cpp recurses into it.
std::vector<YAML::Node> load_documents(const YamlReader& r, std::string_view text);

}  // namespace ssim::spec
