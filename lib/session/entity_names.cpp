#include "lib/session/entity_names.hpp"

#include <set>

#include "lib/spec/suggest.hpp"
#include "lib/util/errors.hpp"

namespace ssim::session {

namespace {

std::vector<std::string> known_names(const state::Manifest& m) {
  std::vector<std::string> names;
  std::set<std::string> ensembles;
  for (const auto& e : m.entities) {
    names.push_back(e.name);
    if (!e.ensemble.empty() && ensembles.insert(e.ensemble).second) names.push_back(e.ensemble);
  }
  return names;
}

[[noreturn]] void unknown(const state::Manifest& m, const std::string& name, const std::string& help) {
  throw UsageError("no entity " + name + " in experiment " + m.experiment + help);
}

std::string closest(const state::Manifest& m, const std::string& name) {
  const std::string near = spec::closest_match(name, known_names(m));
  return near.empty() ? "" : "; did you mean " + near + "?";
}

}  // namespace

void refuse_unknown_names(const state::Manifest& m, const std::vector<std::string>& names) {
  for (const auto& n : names) {
    bool known = false;
    for (const auto& e : m.entities) known = known || state::selects(n, e);
    if (!known) unknown(m, n, closest(m, n));
  }
}

const state::EntityRecord& one_entity(const state::Manifest& m, const std::string& name) {
  if (const auto* e = m.find(name)) return *e;
  std::vector<std::string> members;
  for (const auto& e : m.entities)
    if (e.ensemble == name) members.push_back(e.name);
  if (members.empty()) unknown(m, name, closest(m, name));
  const std::string shown = members.size() <= 3 ? members[0] + (members.size() > 1 ? ", " + members[1] : "") +
                                                      (members.size() > 2 ? ", " + members[2] : "")
                                                : members.front() + " .. " + members.back();
  unknown(m, name,
          ": " + name + " is an ensemble of " + std::to_string(members.size()) + " members (" + shown +
              "); name one, e.g. " + members.front());
}

}  // namespace ssim::session
