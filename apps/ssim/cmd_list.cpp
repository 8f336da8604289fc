// ssim list [--json]: the experiments this user ran (from the history ssim keeps), the
// most recent first: name, outcome, when, path. Reads manifests only; asks no scheduler.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "apps/ssim/verbs.hpp"
#include "lib/report/html.hpp"
#include "lib/state/history.hpp"
#include "lib/state/lock.hpp"
#include "lib/state/manifest.hpp"

namespace ssim::app {

namespace {
struct ListOptions {
  bool json = false;
};

struct Row {
  std::string name, outcome, started, path;
  nlohmann::json json;
};

Row row_of(const std::string& path) {
  Row r{"-", "gone", "-", path, {{"path", path}, {"outcome", "gone"}}};
  state::Manifest m;
  try {
    m = state::load_manifest(path);
  } catch (const std::exception&) {
    return r;  // deleted or moved since
  }
  std::map<state::Status, int> counts;
  int entities = 0;
  for (const auto& e : m.entities)
    if (e.type != "database") counts[e.status]++, ++entities;
  const int failed = counts.count(state::Status::Failed) ? counts.at(state::Status::Failed) : 0;
  const auto runner = state::RunLock::holder(path);
  r.name = m.experiment;
  const std::string outcome = runner ? "running" : m.finished <= 0 ? "stopped" : failed ? "failed" : "completed";
  r.outcome = failed ? outcome + " (" + std::to_string(failed) + " of " + std::to_string(entities) + ")"
                     : outcome;
  r.started = report::date_time(m.created);
  nlohmann::json c = nlohmann::json::object();
  for (const auto& [s, n] : counts) c[to_string(s)] = n;
  r.json = {{"name", m.experiment}, {"path", path},     {"outcome", outcome},
            {"created", m.created}, {"finished", m.finished}, {"counts", c}, {"launcher", m.launcher}};
  return r;
}
}  // namespace

Action add_list(CLI::App& app) {
  auto o = std::make_shared<ListOptions>();
  auto* cmd = app.add_subcommand("list", "List the experiments you ran, the most recent first");
  cmd->add_flag("--json", o->json, "one JSON array");
  return [o] {
    std::vector<Row> rows;
    for (const auto& path : state::experiment_paths()) rows.push_back(row_of(path));
    if (o->json) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& r : rows) out.push_back(r.json);
      std::cout << out.dump(2) << "\n";
      return 0;
    }
    size_t wn = 4, wo = 7, ws = 7;
    for (const auto& r : rows) {
      wn = std::max(wn, r.name.size());
      wo = std::max(wo, r.outcome.size());
      ws = std::max(ws, r.started.size());
    }
    auto line = [&](const std::string& a, const std::string& b, const std::string& c, const std::string& d) {
      std::cout << a << std::string(wn - a.size() + 2, ' ') << b << std::string(wo - b.size() + 2, ' ') << c
                << std::string(ws - c.size() + 2, ' ') << d << "\n";
    };
    line("NAME", "OUTCOME", "STARTED", "PATH");
    for (const auto& r : rows) line(r.name, r.outcome, r.started, r.path);
    return 0;
  };
}

}  // namespace ssim::app
