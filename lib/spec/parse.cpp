#include "lib/spec/parse.hpp"

#include <algorithm>
#include <filesystem>
#include <cstring>
#include <fstream>
#include <sstream>

#include "lib/spec/parse_parts.hpp"

namespace ssim::spec {

namespace {

void check_env_names(const YamlReader& r, const TextMap& env, const std::string& field) {
  for (const auto& [k, v] : env)
    if (!is_identifier(k))
      r.fail(v.loc, join_field(field, k),
             "environment variable names are letters, digits and '_', not starting with a digit");
}

void read_experiment_section(const YamlReader& r, const YAML::Node& node, ExperimentSpec& spec) {
  const std::string field = "experiment";
  if (!node.IsMap())
    r.fail(node, field, "expected a mapping with at least a name, got " + YamlReader::describe(node));
  r.expect_map(node, field, {"name", "path", "launcher", "env", "setup"});
  const YAML::Node name = node["name"];
  if (!name) r.fail(node, "experiment.name", "missing (every experiment needs a name)");
  spec.name = r.name(name, "experiment.name");
  if (auto n = node["path"]) {
    spec.path = r.scalar(n, "experiment.path");
    if (spec.path->empty()) r.fail(n, "experiment.path", "must not be empty");
  }
  if (auto n = node["launcher"])
    spec.launcher = r.choice(n, "experiment.launcher", {"auto", "local", "slurm", "pbs", "lsf"});
  if (auto n = node["env"]) {
    spec.env = r.text_map(n, "experiment.env");
    check_env_names(r, spec.env, "experiment.env");
  }
  if (auto n = node["setup"]) spec.setup = r.string_list(n, "experiment.setup");
}

void read_entities(const YamlReader& r, const YAML::Node& node, const std::string& field,
                   EntityKind kind, ExperimentSpec& spec) {
  if (node.IsNull()) return;
  if (!node.IsSequence())
    r.fail(node, field, "expected a list of entries, got " + YamlReader::describe(node));
  for (size_t i = 0; i < node.size(); ++i) {
    Entity e = read_entity(r, node[i], index_field(field, i), kind);
    check_env_names(r, e.env, join_field(e.field, "env"));
    spec.entities.push_back(std::move(e));
  }
}

}  // namespace

ExperimentSpec parse_experiment(const std::string& text, const std::string& file,
                                const std::string& base_dir) {
  YamlReader r(file);
  ExperimentSpec spec;
  spec.file = file;
  spec.base_dir = base_dir;

  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    std::string hint;
    std::istringstream lines(text);
    std::string line;
    for (int i = 0; i <= e.mark.line && std::getline(lines, line); ++i) {
    }
    if (line.find('\t') != std::string::npos) hint = " (YAML does not allow tabs for indentation)";
    r.fail(Loc{e.mark.line + 1, e.mark.column + 1}, "", "not valid YAML: " + e.msg + hint);
  }
  if (!root || root.IsNull())
    r.fail(Loc{}, "", "the file is empty: expected a mapping with an experiment: section");
  if (!root.IsMap())
    r.fail(root, "", "expected a mapping at the top (experiment:, orchestrator:, models:, ...), got " +
                         YamlReader::describe(root));
  const YAML::Node& top = root;
  r.expect_map(top, "", {"experiment", "allocation", "batch", "orchestrator", "models", "ensembles"});

  const YAML::Node experiment = top["experiment"];
  if (!experiment) r.fail(Loc{1, 1}, "experiment", "missing (the experiment: section with a name)");
  read_experiment_section(r, experiment, spec);
  if (auto n = top["allocation"]) spec.allocation = read_batch(r, n, "allocation", false);
  if (auto n = top["batch"]) spec.batch = read_batch(r, n, "batch", true);
  if (auto n = top["orchestrator"]) spec.orchestrator = read_orchestrator(r, n, "orchestrator");
  if (auto n = top["models"]) read_entities(r, n, "models", EntityKind::Model, spec);
  if (auto n = top["ensembles"]) read_entities(r, n, "ensembles", EntityKind::Ensemble, spec);

  // File order: models and ensembles are separate lists, but users read the file top down.
  std::stable_sort(spec.entities.begin(), spec.entities.end(), [](const Entity& a, const Entity& b) {
    return a.loc.line != b.loc.line ? a.loc.line < b.loc.line : a.loc.col < b.loc.col;
  });
  validate_experiment(r, spec);
  return spec;
}

ExperimentSpec load_experiment(const std::string& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(file, ec)) throw SpecError(file, {}, "", "is a directory, not an experiment file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw SpecError(file, {}, "", "cannot read the file: " + std::string(std::strerror(errno)));
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  if (text.find('\0') != std::string::npos)
    throw SpecError(file, {}, "", "not a YAML file (it holds binary data)");
  const fs::path dir = fs::absolute(fs::path(file)).parent_path().lexically_normal();
  return parse_experiment(text, file, dir.string());
}

}  // namespace ssim::spec
