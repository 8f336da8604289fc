// Checks that need the whole experiment: names, references between entities, cycles,
// $(name) references, and the files listed under files:.
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>

#include "lib/spec/parse_parts.hpp"
#include "lib/spec/suggest.hpp"
#include "lib/spec/template.hpp"

namespace ssim::spec {

namespace {

const std::vector<std::string>& kBuiltins = builtin_parameters();

void check_refs(const YamlReader& r, const Text& text, const std::string& field,
                const std::vector<std::string>& known) {
  std::vector<std::string> refs;
  try {
    refs = template_refs(text.value);
  } catch (const TemplateError& e) {
    r.fail(text.loc, field, e.what());
  }
  for (const auto& ref : refs) {
    if (std::find(known.begin(), known.end(), ref) != known.end()) continue;
    std::string message = "unknown parameter $(" + ref + ")";
    const std::string guess = closest_match(ref, known);
    if (!guess.empty())
      message += " (did you mean $(" + guess + ")?)";
    else
      message += " (for a literal $(" + ref + "), as a shell would read it, write $$(" + ref + "))";
    r.fail(text.loc, field, message);
  }
}

void check_entity_refs(const YamlReader& r, const Entity& e, const TextMap& experiment_env) {
  std::vector<std::string> known = kBuiltins;
  for (const auto& p : e.params) known.push_back(p.name);
  check_refs(r, e.exe, join_field(e.field, "exe"), known);
  for (size_t i = 0; i < e.args.size(); ++i)
    check_refs(r, e.args[i], index_field(join_field(e.field, "args"), i), known);
  for (const auto& [k, v] : e.env) check_refs(r, v, join_field(e.field, "env." + k), known);
  for (const auto& [k, v] : e.run.fields) check_refs(r, v, join_field(e.field, "run." + k), known);
  for (size_t i = 0; i < e.run.hosts.size(); ++i)
    check_refs(r, e.run.hosts[i], index_field(join_field(e.field, "run.hosts"), i), known);
  for (const auto& [k, v] : e.run.launcher_args) check_refs(r, v, join_field(e.field, "run.launcher_args." + k), known);
  for (const auto& [k, v] : experiment_env) check_refs(r, v, "experiment.env." + k, kBuiltins);
}

// "sim_3": member 3 of ensemble sim, when it has one; nullptr otherwise.
const Entity* ensemble_of_member(const std::string& name, const std::map<std::string, const Entity*>& by_name) {
  const size_t cut = name.rfind('_');
  if (cut == std::string::npos || cut + 1 >= name.size()) return nullptr;
  const std::string index = name.substr(cut + 1);
  if (index.size() > 7 || index.find_first_not_of("0123456789") != std::string::npos) return nullptr;
  if (index.size() > 1 && index[0] == '0') return nullptr;  // sim_03 is not a member's name
  const auto it = by_name.find(name.substr(0, cut));
  if (it == by_name.end() || it->second->kind != EntityKind::Ensemble) return nullptr;
  return std::stoul(index) < member_count(*it->second) ? it->second : nullptr;
}

void check_names(const YamlReader& r, const ExperimentSpec& spec, const std::map<std::string, const Entity*>& by_name,
                 const std::vector<std::string>& names) {
  for (const auto& e : spec.entities) {
    auto check_list = [&](const std::vector<Text>& list, const char* key) {
      for (size_t i = 0; i < list.size(); ++i) {
        if (by_name.count(list[i].value)) continue;
        // after: and after_any: may name one member of an ensemble.
        if (std::string(key) != "incoming" && std::string(key) != "after_each" &&
            ensemble_of_member(list[i].value, by_name))
          continue;
        std::string message = "unknown entity \"" + printable(list[i].value) + "\"";
        const std::string guess = closest_match(list[i].value, names);
        if (!guess.empty()) message += " (did you mean \"" + guess + "\"?)";
        r.fail(list[i].loc, index_field(join_field(e.field, key), i), message);
      }
    };
    check_list(e.after, "after");
    check_list(e.after_any, "after_any");
    check_list(e.after_each, "after_each");
    check_list(e.incoming, "incoming");
    for (const auto& [list, key] :
         {std::pair{&e.after, "after"}, std::pair{&e.after_any, "after_any"}, std::pair{&e.after_each, "after_each"}})
      for (size_t i = 0; i < list->size(); ++i)
        if ((*list)[i].value == e.name)
          r.fail((*list)[i].loc, index_field(join_field(e.field, key), i), "an entity cannot wait for itself");
    for (size_t i = 0; i < e.after_each.size(); ++i) {
      const auto* other = by_name.at(e.after_each[i].value);  // after_each names ensembles only (checked above)
      if (e.kind != EntityKind::Ensemble || other->kind != EntityKind::Ensemble)
        r.fail(e.after_each[i].loc, index_field(join_field(e.field, "after_each"), i),
               "after_each matches members of two ensembles; for a model use after (every member) or after_any");
    }
  }
}

// Depth-first search for a cycle through after:; reports the first edge that closes one.
void check_cycles(const YamlReader& r, const ExperimentSpec& spec,
                  const std::map<std::string, const Entity*>& by_name) {
  enum class Mark { None, Active, Done };
  std::map<std::string, Mark> mark;
  std::vector<std::string> path;
  std::function<void(const Entity&)> visit = [&](const Entity& e) {
    mark[e.name] = Mark::Active;
    path.push_back(e.name);
    for (const auto& [list, key] :
         {std::pair{&e.after, "after"}, std::pair{&e.after_any, "after_any"}, std::pair{&e.after_each, "after_each"}}) {
      for (size_t i = 0; i < list->size(); ++i) {
        const auto* member_of =
            by_name.count((*list)[i].value) ? nullptr : ensemble_of_member((*list)[i].value, by_name);
        const std::string& next = member_of ? member_of->name : (*list)[i].value;
        if (mark[next] == Mark::Active) {
          std::string cycle;
          auto start = std::find(path.begin(), path.end(), next);
          for (auto it = start; it != path.end(); ++it) cycle += *it + " -> ";
          r.fail((*list)[i].loc, index_field(join_field(e.field, key), i),
                 std::string(key) + ": forms a cycle: " + cycle + next);
        }
        if (mark[next] == Mark::None) visit(*by_name.at(next));
      }
    }
    path.pop_back();
    mark[e.name] = Mark::Done;
  };
  for (const auto& e : spec.entities)
    if (mark[e.name] == Mark::None) visit(e);
}

// The name a files: entry gets in the run directory (a folder's own name for "dir/").
std::string placed_name(const std::filesystem::path& p) {
  return p.filename().empty() ? p.parent_path().filename().string() : p.filename().string();
}

// Counting without building: a few lines can describe 10^12 members.
void check_member_counts(const YamlReader& r, const ExperimentSpec& spec, const ParseOptions& options) {
  size_t total = 0;
  for (const auto& e : spec.entities) {
    if (e.kind != EntityKind::Ensemble) continue;
    if (e.strategy == Strategy::Random && e.samples && static_cast<size_t>(*e.samples) > combination_space(e))
      r.fail(e.samples_loc, join_field(e.field, "samples"),
             "samples: " + std::to_string(*e.samples) + " is more than the " + std::to_string(combination_space(e)) +
                 " distinct combinations the params allow");
    const size_t n = member_count(e);
    total = n > SIZE_MAX - total ? SIZE_MAX : total + n;
    if (total > options.max_members)
      r.fail(e.loc, e.field,
             "expands to " + (n == SIZE_MAX ? std::string("too many") : std::to_string(n)) + " members" +
                 (n == total ? std::string() : ", bringing the experiment to " + std::to_string(total)) +
                 ", over the limit of " + std::to_string(options.max_members) +
                 " members (raise it with --max-members N)");
  }
}

void check_files(const YamlReader& r, const ExperimentSpec& spec) {
  namespace fs = std::filesystem;
  for (const auto& e : spec.entities) {
    std::map<std::string, std::string> placed;  // name in the run directory -> field
    auto check = [&](const std::vector<Text>& list, const char* key) {
      for (size_t i = 0; i < list.size(); ++i) {
        const std::string field = index_field(join_field(e.field, std::string("files.") + key), i);
        if (list[i].value.empty()) r.fail(list[i].loc, field, "empty path");
        fs::path p = (fs::path(spec.base_dir) / list[i].value).lexically_normal();
        const std::string name = placed_name(p);
        if (name.empty() || name == "." || name == "..")
          r.fail(list[i].loc, field,
                 "cannot place " + printable(list[i].value) + " in a run directory (use a file or folder below /)");
        if (placed.count(name))
          r.fail(list[i].loc, field,
                 "\"" + printable(name) + "\" is already placed in the run directory by " + placed[name] +
                     " (two sources with the same name)");
        placed[name] = field;
        std::error_code ec;
        if (!fs::exists(p, ec))
          r.fail(list[i].loc, field,
                 "no such file or directory: " + printable(list[i].value, 200) +
                     " (paths are relative to the experiment file)");
        if (std::string(key) == "configure" && !fs::is_regular_file(p, ec))
          r.fail(list[i].loc, field, "configure takes regular files, not " + p.string());
      }
    };
    check(e.files.copy, "copy");
    check(e.files.symlink, "symlink");
    check(e.files.configure, "configure");
  }
}

}  // namespace

size_t combination_space(const Entity& e) {
  size_t n = 1;
  for (const auto& p : e.params) {
    const size_t k = p.values.size();
    if (k != 0 && n > SIZE_MAX / k) return SIZE_MAX;
    n *= k;
  }
  return n;
}

size_t member_count(const Entity& e) {
  if (e.kind == EntityKind::Model) return 1;
  size_t combos = 1;
  if (!e.params.empty()) {
    switch (e.strategy) {
      case Strategy::AllPerm:
        combos = combination_space(e);
        break;
      case Strategy::Step:
        combos = e.params.front().values.size();
        break;
      case Strategy::Random:
        combos = static_cast<size_t>(e.samples.value_or(1));
        break;
    }
  }
  const auto replicas = static_cast<size_t>(e.replicas);
  return combos > SIZE_MAX / replicas ? SIZE_MAX : combos * replicas;
}

void validate_experiment(const YamlReader& r, const ExperimentSpec& spec, const ParseOptions& options) {
  check_member_counts(r, spec, options);
  std::map<std::string, const Entity*> by_name;
  std::vector<std::string> names;
  for (const auto& e : spec.entities) {
    if (by_name.count(e.name))
      r.fail(e.loc, join_field(e.field, "name"),
             "duplicate entity name \"" + e.name + "\" (also " + by_name[e.name]->field + ")");
    by_name[e.name] = &e;
    names.push_back(e.name);
  }
  // A member of ensemble "a" is named a_<i>; a model named like that would share its SSKEYOUT.
  for (const auto& e : spec.entities) {
    if (e.kind != EntityKind::Ensemble) continue;
    for (const auto& other : spec.entities) {
      if (other.kind == EntityKind::Model && other.name.rfind(e.name + "_", 0) == 0 &&
          other.name.find_first_not_of("0123456789", e.name.size() + 1) == std::string::npos)
        r.fail(other.loc, join_field(other.field, "name"),
               "\"" + other.name + "\" clashes with a member name of ensemble \"" + e.name + "\"");
    }
  }
  // SmartRedis reaches a database through the door: there must be one.
  for (const auto& e : spec.entities) {
    if (!e.smartredis.value_or(spec.smartredis) || spec.orchestrator || e.colocated_db) continue;
    const bool own = e.smartredis.has_value();
    r.fail(own ? e.smartredis_loc : spec.smartredis_loc,
           own ? join_field(e.field, "smartredis") : "experiment.smartredis",
           "\"" + e.name + "\" would reach no database: add an orchestrator section or a colocated_db");
  }
  check_names(r, spec, by_name, names);
  check_cycles(r, spec, by_name);
  for (const auto& e : spec.entities) check_entity_refs(r, e, spec.env);
  check_files(r, spec);
}

}  // namespace ssim::spec
