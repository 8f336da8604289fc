#include <map>

#include "lib/report/sections.hpp"

namespace ssim::report {

std::vector<Group> groups_of(const state::Manifest& m) {
  Group database{"database", {}, false}, models{"models", {}, false};
  std::vector<Group> ensembles;
  std::map<std::string, size_t> index;
  for (const auto& e : m.entities) {
    if (e.type == state::EntityKind::Database)
      database.entities.push_back(&e);
    else if (e.ensemble.empty())
      models.entities.push_back(&e);
    else {
      auto [it, fresh] = index.emplace(e.ensemble, ensembles.size());
      if (fresh) ensembles.push_back({e.ensemble, {}, true});
      ensembles[it->second].entities.push_back(&e);
    }
  }
  std::vector<Group> out;
  if (!database.entities.empty()) out.push_back(std::move(database));
  if (!models.entities.empty()) out.push_back(std::move(models));
  for (auto& g : ensembles) out.push_back(std::move(g));
  return out;
}

double runtime_of(const state::EntityRecord& e, double now) {
  // A pending entity's start is only its submission: no bar until it runs.
  return e.status == state::Status::Pending ? -1 : state::seconds_run(e, now);
}

const char* colour_of(state::Status s) {
  switch (s) {
    case state::Status::Completed:
      return "#2e7d32";
    case state::Status::Failed:
      return "#c62828";
    case state::Status::Cancelled:
      return "#8d8d8d";
    case state::Status::Running:
      return "#1565c0";
    case state::Status::Pending:
      return "#f2a900";
    default:
      return "#cfcfcf";
  }
}

}  // namespace ssim::report
