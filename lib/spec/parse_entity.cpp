// models: and ensembles: entries.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "lib/spec/parse_parts.hpp"
#include "lib/spec/template.hpp"

namespace ssim::spec {

namespace {

const std::vector<std::string> kModelKeys = {"name",         "exe",   "args",          "env",       "params",
                                             "run",          "files", "incoming",      "after",     "after_any",
                                             "after_each",   "batch", "key_prefixing", "retries",   "setup",
                                             "colocated_db", "goal",  "container",     "smartredis"};
const std::vector<std::string> kEnsembleOnlyKeys = {"replicas", "strategy", "samples", "seed", "gang"};

Files read_files(const YamlReader& r, const YAML::Node& node, const std::string& field) {
  Files files;
  if (node.IsNull()) return files;
  r.expect_map(node, field, {"copy", "symlink", "configure"});
  if (auto n = node["copy"]) files.copy = r.line_list(n, join_field(field, "copy"));
  if (auto n = node["symlink"]) files.symlink = r.line_list(n, join_field(field, "symlink"));
  if (auto n = node["configure"]) files.configure = r.line_list(n, join_field(field, "configure"));
  return files;
}

// goal: {metric: NAME, at_least: X | at_most: X, stop_on_goal: BOOL}
Goal read_goal(const YamlReader& r, const YAML::Node& node, const std::string& field) {
  Goal g;
  g.loc = YamlReader::loc(node);
  if (!node.IsMap())
    r.fail(node, field,
           "expected a mapping {metric: NAME, at_least: NUMBER} (or at_most), got " + YamlReader::describe(node));
  r.expect_map(node, field, {"metric", "at_least", "at_most", "stop_on_goal"});
  const auto f = [&](const char* key) { return join_field(field, key); };
  const YAML::Node metric = node["metric"];
  if (!metric) r.fail(node, f("metric"), "missing (the metric the goal is about, as the program reports it)");
  g.metric = r.scalar(metric, f("metric"));
  bool valid = !g.metric.empty() && g.metric.size() <= 64 && std::isalpha(static_cast<unsigned char>(g.metric[0]));
  for (char c : g.metric)
    valid = valid && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' || c == '/');
  if (!valid)
    r.fail(metric, f("metric"),
           "\"" + printable(g.metric) + "\" is not a metric name (letters, digits, _ . - /, starting with a letter)");
  const YAML::Node least = node["at_least"], most = node["at_most"];
  if (least && most) r.fail(most, f("at_most"), "give at_least or at_most, not both");
  if (!least && !most) r.fail(node, field, "needs at_least: NUMBER or at_most: NUMBER");
  const YAML::Node value = least ? least : most;
  g.at_least = static_cast<bool>(least);
  const std::string text = r.scalar(value, f(least ? "at_least" : "at_most"));
  char* end = nullptr;
  g.target = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(g.target))
    r.fail(value, f(least ? "at_least" : "at_most"), "expected a number, got \"" + printable(text) + "\"");
  if (auto n = node["stop_on_goal"]) g.stop = r.boolean(n, f("stop_on_goal"));
  return g;
}

std::vector<Param> read_params(const YamlReader& r, const YAML::Node& node, const std::string& field, EntityKind kind) {
  std::vector<Param> params;
  if (node.IsNull()) return params;
  r.expect_free_map(node, field);
  const std::vector<std::string>& builtins = builtin_parameters();
  for (auto it = node.begin(); it != node.end(); ++it) {
    Param p;
    p.name = it->first.Scalar();
    p.loc = YamlReader::loc(it->first);
    const std::string sub = join_field(field, p.name);
    if (!is_identifier(p.name))
      r.fail(it->first, sub, "parameter names are letters, digits and '_', not starting with a digit");
    if (std::find(builtins.begin(), builtins.end(), p.name) != builtins.end())
      r.fail(it->first, sub, "\"" + p.name + "\" is a built-in name and cannot be a parameter");
    const YAML::Node& value = it->second;
    if (value.IsSequence() && kind == EntityKind::Ensemble) {
      p.values = r.text_list(value, sub);
      if (p.values.empty()) r.fail(value, sub, "expected at least one value, got an empty list");
    } else if (value.IsScalar()) {
      p.values.push_back(r.text(value, sub));
    } else {
      const std::string expected = kind == EntityKind::Ensemble ? "a value or a list of values" : "a value";
      r.fail(value, sub, "expected " + expected + ", got " + YamlReader::describe(value));
    }
    params.push_back(std::move(p));
  }
  return params;
}

// `exe: python3 train.py` is a common slip: no shell splits it, so it would look for a
// program named "python3 train.py". A real path with a blank in it is fine.
void check_exe_words(const YamlReader& r, const Text& exe, const std::string& field, const std::string& base_dir) {
  const size_t blank = exe.value.find_first_of(" \t");
  if (blank == std::string::npos || exe.value.find("$(") != std::string::npos) return;
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::path(base_dir) / exe.value;
  if (std::filesystem::exists(p, ec)) return;
  r.fail(exe.loc, field,
         "\"" + printable(exe.value) + "\" is not one program: no shell splits exe; write exe: " +
             printable(exe.value.substr(0, blank)) + " and put the rest under args:");
}

}  // namespace

Entity read_entity(const YamlReader& r, const YAML::Node& node, const std::string& field, EntityKind kind,
                   const std::string& base_dir) {
  std::vector<std::string> keys = kModelKeys;
  if (kind == EntityKind::Ensemble) keys.insert(keys.end(), kEnsembleOnlyKeys.begin(), kEnsembleOnlyKeys.end());
  if (node.IsNull() || !node.IsMap())
    r.fail(node, field, "expected a mapping with at least name and exe, got " + YamlReader::describe(node));
  if (kind == EntityKind::Model) {
    for (const auto& k : kEnsembleOnlyKeys)
      if (auto n = node[k])
        r.fail(n, join_field(field, k), "only ensembles take " + k + " (move this entry under ensembles:)");
  }
  r.expect_map(node, field, keys);
  auto f = [&](const char* key) { return join_field(field, key); };

  Entity e;
  e.kind = kind;
  e.field = field;
  e.loc = YamlReader::loc(node);
  const YAML::Node name = node["name"];
  if (!name) r.fail(node, f("name"), "missing (every entity needs a name)");
  e.name = r.name(name, f("name"));
  if (e.name == "orchestrator")
    r.fail(name, f("name"), "\"orchestrator\" is reserved for the database's run directory");
  const YAML::Node exe = node["exe"];
  if (!exe) r.fail(node, f("exe"), "missing (the program to run)");
  e.exe = r.line(exe, f("exe"));
  if (e.exe.value.empty()) r.fail(exe, f("exe"), "must not be empty");
  check_exe_words(r, e.exe, f("exe"), base_dir);
  if (auto n = node["args"]) e.args = r.text_list(n, f("args"));
  if (auto n = node["env"]) e.env = r.text_map(n, f("env"));
  if (auto n = node["params"]) {
    e.params = read_params(r, n, f("params"), kind);
    e.params_loc = YamlReader::loc(n);
  }
  if (auto n = node["run"]) e.run = read_run(r, n, f("run"));
  if (auto n = node["files"]) e.files = read_files(r, n, f("files"));
  if (auto n = node["incoming"]) e.incoming = r.text_list(n, f("incoming"));
  if (auto n = node["after"]) e.after = r.text_list(n, f("after"));
  if (auto n = node["after_any"]) e.after_any = r.text_list(n, f("after_any"));
  if (auto n = node["after_each"]) e.after_each = r.text_list(n, f("after_each"));
  if (auto n = node["batch"]) e.batch = read_batch(r, n, f("batch"), true);
  if (auto n = node["key_prefixing"]) e.key_prefixing = r.boolean(n, f("key_prefixing"));
  if (auto n = node["retries"]) e.retries = r.integer(n, f("retries"), 0, 100);
  if (auto n = node["goal"]) e.goal = read_goal(r, n, f("goal"));
  if (auto n = node["setup"])
    for (auto& t : r.line_list(n, f("setup"))) e.setup.push_back(std::move(t.value));
  if (auto n = node["colocated_db"]) e.colocated_db = read_colocated_db(r, n, f("colocated_db"));
  if (auto n = node["container"]) e.container = read_container(r, n, f("container"), true);
  if (auto n = node["smartredis"]) {
    e.smartredis = r.boolean(n, f("smartredis"));
    e.smartredis_loc = YamlReader::loc(n);
  }
  if (kind == EntityKind::Model) return e;

  if (auto n = node["replicas"]) e.replicas = r.integer(n, f("replicas"), 1, 1000000);
  if (auto n = node["gang"]) e.gang = r.boolean(n, f("gang"));
  const YAML::Node strategy = node["strategy"];
  if (strategy) {
    const std::string s = r.choice(strategy, f("strategy"), {"all_perm", "step", "random"});
    e.strategy = s == "all_perm" ? Strategy::AllPerm : s == "step" ? Strategy::Step : Strategy::Random;
  }
  if (auto n = node["samples"]) {
    e.samples = r.integer(n, f("samples"), 1, 1000000);
    e.samples_loc = YamlReader::loc(n);
    if (e.strategy != Strategy::Random) r.fail(n, f("samples"), "only meaningful with strategy: random");
  }
  if (auto n = node["seed"]) {
    e.seed = static_cast<uint64_t>(r.integer(n, f("seed"), 0, 2147483647));
    if (e.strategy != Strategy::Random) r.fail(n, f("seed"), "only meaningful with strategy: random");
  }
  if (e.strategy == Strategy::Random && !e.samples)
    r.fail(strategy, f("samples"), "strategy: random needs samples: N (how many combinations)");
  if (e.strategy == Strategy::Step && !e.params.empty()) {
    for (const auto& p : e.params) {
      if (p.values.size() != e.params.front().values.size())
        r.fail(p.loc, join_field(f("params"), p.name),
               "strategy: step needs lists of equal length: " + e.params.front().name + " has " +
                   std::to_string(e.params.front().values.size()) + " values, " + p.name + " has " +
                   std::to_string(p.values.size()));
    }
  }
  return e;
}

}  // namespace ssim::spec
