#include "lib/spec/parse.hpp"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
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

// "~" and "~/x" are the user's home, "~user/x" that user's, as a shell would have it.
std::string expand_home(const YamlReader& r, const YAML::Node& node, const std::string& path) {
  if (path.empty() || path[0] != '~') return path;
  const size_t slash = path.find('/');
  const std::string user = path.substr(1, slash == std::string::npos ? std::string::npos : slash - 1);
  std::string home;
  if (user.empty()) {
    const char* h = std::getenv("HOME");
    if (h && *h)
      home = h;
    else if (const passwd* pw = ::getpwuid(::getuid()))
      home = pw->pw_dir;
  } else if (const passwd* pw = ::getpwnam(user.c_str())) {
    home = pw->pw_dir;
  }
  if (home.empty())
    r.fail(node, "experiment.path", "cannot expand " + printable(path.substr(0, slash)) + ": no such home directory");
  return slash == std::string::npos ? home : home + path.substr(slash);
}

void read_experiment_section(const YamlReader& r, const YAML::Node& node, ExperimentSpec& spec,
                             const ParseOptions& options) {
  const std::string field = "experiment";
  if (!node.IsMap()) r.fail(node, field, "expected a mapping with at least a name, got " + YamlReader::describe(node));
  r.expect_map(node, field,
               {"name", "path", "launcher", "env", "setup", "max_running", "oversubscribe", "python", "container",
                "smartredis"});
  const YAML::Node name = node["name"];
  if (!name) r.fail(node, "experiment.name", "missing (every experiment needs a name)");
  spec.name = r.name(name, "experiment.name");
  spec.path_loc = YamlReader::loc(name);
  if (auto n = node["path"]) {
    spec.path = expand_home(r, n, r.line(n, "experiment.path").value);
    spec.path_loc = YamlReader::loc(n);
    if (spec.path->empty()) r.fail(n, "experiment.path", "must not be empty");
  }
  if (auto n = node["launcher"]) spec.launcher = r.choice(n, "experiment.launcher", options.launchers);
  if (auto n = node["env"]) {
    spec.env = r.text_map(n, "experiment.env");
    check_env_names(r, spec.env, "experiment.env");
  }
  if (auto n = node["setup"])
    for (auto& t : r.line_list(n, "experiment.setup")) spec.setup.push_back(std::move(t.value));
  if (auto n = node["max_running"]) spec.max_running = r.integer(n, "experiment.max_running", 1, 1000000);
  if (auto n = node["oversubscribe"]) spec.oversubscribe = r.boolean(n, "experiment.oversubscribe");
  if (auto n = node["container"]) spec.container = read_container(r, n, "experiment.container", false);
  if (auto n = node["smartredis"]) {
    spec.smartredis = r.boolean(n, "experiment.smartredis");
    spec.smartredis_loc = YamlReader::loc(n);
  }
  if (auto n = node["python"]) {
    spec.python = r.line(n, "experiment.python").value;
    if (spec.python.empty()) r.fail(n, "experiment.python", "must not be empty (leave it out for the default)");
  }
}

void read_entities(const YamlReader& r, const YAML::Node& node, const std::string& field, EntityKind kind,
                   ExperimentSpec& spec) {
  if (node.IsNull()) return;
  if (!node.IsSequence()) r.fail(node, field, "expected a list of entries, got " + YamlReader::describe(node));
  for (size_t i = 0; i < node.size(); ++i) {
    Entity e = read_entity(r, node[i], index_field(field, i), kind, spec.base_dir);
    check_env_names(r, e.env, join_field(e.field, "env"));
    spec.entities.push_back(std::move(e));
  }
}

std::string too_big_message(size_t bytes) {
  return "the file is too large (" + std::to_string(bytes / 1024) + " KiB; experiment files are at most " +
         std::to_string(kMaxFileBytes / (1024 * 1024)) + " MiB)";
}

}  // namespace

ExperimentSpec parse_experiment(std::string_view text, const std::string& file, const std::string& base_dir,
                                const ParseOptions& options) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a UTF-8 byte order mark
  YamlReader r(file);
  ExperimentSpec spec;
  spec.file = file;
  spec.base_dir = base_dir;

  const std::vector<YAML::Node> documents = load_documents(r, text);
  if (documents.empty() || !documents[0] || documents[0].IsNull())
    r.fail(Loc{1, 1}, "", "the file is empty: expected a mapping with an experiment: section");
  if (documents.size() > 1)
    r.fail(documents[1], "", "a second YAML document (after ---): an experiment file holds one");
  const YAML::Node root = documents[0];
  if (!root.IsMap())
    r.fail(
        root, "",
        "expected a mapping at the top (experiment:, orchestrator:, models:, ...), got " + YamlReader::describe(root));
  const YAML::Node& top = root;
  r.expect_map(top, "", {"experiment", "allocation", "batch", "orchestrator", "models", "ensembles"});

  const YAML::Node experiment = top["experiment"];
  if (!experiment) r.fail(Loc{1, 1}, "experiment", "missing (the experiment: section with a name)");
  read_experiment_section(r, experiment, spec, options);
  if (auto n = top["allocation"]) spec.allocation = read_batch(r, n, "allocation", false);
  if (auto n = top["batch"]) spec.batch = read_batch(r, n, "batch", true);
  if (auto n = top["orchestrator"]) spec.orchestrator = read_orchestrator(r, n, "orchestrator");
  if (auto n = top["models"]) read_entities(r, n, "models", EntityKind::Model, spec);
  if (auto n = top["ensembles"]) read_entities(r, n, "ensembles", EntityKind::Ensemble, spec);

  // File order: models and ensembles are separate lists, but users read the file top down.
  std::stable_sort(spec.entities.begin(), spec.entities.end(), [](const Entity& a, const Entity& b) {
    return a.loc.line != b.loc.line ? a.loc.line < b.loc.line : a.loc.col < b.loc.col;
  });
  if (spec.entities.empty() && !(spec.orchestrator && options.database_alone))
    r.fail(Loc{1, 1}, "models",
           std::string("the experiment has no models and no ensembles: nothing to run") +
               (spec.orchestrator ? " (a database alone: ssim run --open, which then takes ssim start)" : ""));
  validate_experiment(r, spec, options);
  return spec;
}

ExperimentSpec load_experiment(const std::string& file, const ParseOptions& options) {
  namespace fs = std::filesystem;
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0)
    throw SpecError(file, {}, "", "cannot read the file: " + std::string(std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) throw SpecError(file, {}, "", "is a directory, not an experiment file");
  if (S_ISREG(st.st_mode) && static_cast<size_t>(st.st_size) > kMaxFileBytes)
    throw SpecError(file, {}, "", too_big_message(static_cast<size_t>(st.st_size)));
  std::ifstream in(file, std::ios::binary);
  if (!in) throw SpecError(file, {}, "", "cannot read the file: " + std::string(std::strerror(errno)));
  // Read at most one byte more than allowed: a pipe or device has no size to check first.
  std::string text(kMaxFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxFileBytes) throw SpecError(file, {}, "", too_big_message(text.size()));
  if (text.find('\0') != std::string::npos) throw SpecError(file, {}, "", "not a YAML file (it holds binary data)");
  const fs::path dir = fs::absolute(fs::path(file)).parent_path().lexically_normal();
  return parse_experiment(text, file, dir.string(), options);
}

}  // namespace ssim::spec
