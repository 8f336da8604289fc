// ssim list [--json]: the experiments this user ran (from the history ssim keeps), the
// most recent first: name, outcome, when, path. Reads manifests only; asks no scheduler.
#include <iostream>
#include <memory>

#include "lib/session/experiment_summary.hpp"
#include "apps/ssim/verbs.hpp"
#include "lib/report/html.hpp"
#include "lib/state/history.hpp"

namespace ssim::app {
using namespace ssim::session;

namespace {
struct ListOptions {
  bool json = false;
};

// "failed (1 of 7)", "completed", ...
std::string outcome_text(const nlohmann::json& s) {
  std::string out = s["outcome"];
  const auto& c = s["counts"];
  if (!c.contains("failed")) return out;
  int total = 0;
  for (const auto& [_, n] : c.items()) total += n.get<int>();
  return out + " (" + std::to_string(c["failed"].get<int>()) + " of " + std::to_string(total) + ")";
}
}  // namespace

Action add_list(CLI::App& app) {
  auto o = std::make_shared<ListOptions>();
  auto* cmd = app.add_subcommand("list", "List the experiments you ran, the most recent first");
  cmd->add_flag("--json", o->json, "one JSON array");
  return [o] {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& path : state::experiment_paths()) all.push_back(experiment_summary(path));
    if (o->json) {
      std::cout << all.dump(2) << "\n";
      return 0;
    }
    std::vector<std::vector<std::string>> rows = {{"NAME", "OUTCOME", "STARTED", "PATH"}};
    for (const auto& s : all)
      rows.push_back({s["name"].get<std::string>().empty() ? "-" : s["name"].get<std::string>(), outcome_text(s),
                      report::date_time(s.value("created", 0.0)), s["path"]});
    std::vector<size_t> width(4, 0);
    for (const auto& r : rows)
      for (size_t c = 0; c < 4; ++c) width[c] = std::max(width[c], r[c].size());
    for (const auto& r : rows) {
      for (size_t c = 0; c < 3; ++c) std::cout << r[c] << std::string(width[c] - r[c].size() + 2, ' ');
      std::cout << r[3] << "\n";
    }
    return 0;
  };
}

}  // namespace ssim::app
