// ssim metrics [EXP] [ENTITY ...] [--json | --csv] [-o FILE]: every metric point the
// entities reported (lib/state/metrics.hpp): by default the latest value of each metric
// per entity; --csv and --json every point, for pandas or a spreadsheet.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "apps/ssim/verbs.hpp"
#include "lib/session/experiment_ref.hpp"
#include "lib/session/current_state.hpp"
#include "lib/state/metrics.hpp"
#include "lib/util/errors.hpp"
#include "lib/util/user_file.hpp"

namespace ssim::app {

namespace {

struct Row {
  const state::EntityRecord* entity;
  state::MetricPoint point;
};

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string number_text(double v) {
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}

std::string opt(const std::optional<long long>& v) { return v ? std::to_string(*v) : ""; }

std::string render_csv(const std::vector<Row>& rows) {
  std::string out = "entity,ensemble,rank,metric,value,step,epoch,phase,time,source\n";
  for (const auto& r : rows) {
    const auto& p = r.point;
    out += csv_field(r.entity->name) + "," + csv_field(r.entity->ensemble) + "," + std::to_string(p.rank) + "," +
           csv_field(p.name) + "," + number_text(p.value) + "," + opt(p.step) + "," + opt(p.epoch) + "," +
           csv_field(p.phase) + "," + (p.time > 0 ? number_text(p.time) : "") + "," + p.source + "\n";
  }
  return out;
}

std::string render_json(const std::vector<Row>& rows) {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& r : rows) {
    const auto& p = r.point;
    nlohmann::json j = {{"entity", r.entity->name}, {"ensemble", r.entity->ensemble}, {"rank", p.rank},
                        {"metric", p.name},         {"value", p.value},               {"source", p.source}};
    j["step"] = p.step ? nlohmann::json(*p.step) : nlohmann::json();
    j["epoch"] = p.epoch ? nlohmann::json(*p.epoch) : nlohmann::json();
    j["phase"] = p.phase;
    j["time"] = p.time > 0 ? nlohmann::json(p.time) : nlohmann::json();
    all.push_back(std::move(j));
  }
  return all.dump(1) + "\n";
}

std::string render_latest(const std::vector<const state::EntityRecord*>& entities) {
  std::vector<std::vector<std::string>> cells = {{"ENTITY", "METRIC", "LATEST", "STEP", "POINTS"}};
  for (const auto* e : entities) {
    const auto points = state::read_metrics(e->run_dir, e->name);
    std::map<std::string, size_t> count;
    for (const auto& p : points) ++count[p.name];
    for (const auto& [name, p] : state::latest_metrics(points))
      cells.push_back({e->name, name, number_text(p.value), p.step ? std::to_string(*p.step) : "-",
                       std::to_string(count[name])});
  }
  if (cells.size() == 1) return "no metrics reported (docs/metrics.md: ssim.metrics.log, or ssim:metric lines)\n";
  std::vector<size_t> width(cells[0].size(), 0);
  for (const auto& row : cells)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  std::string out;
  for (const auto& row : cells) {
    for (size_t c = 0; c < row.size(); ++c)
      out += row[c] + (c + 1 < row.size() ? std::string(width[c] - row[c].size() + 2, ' ') : "\n");
  }
  return out;
}

}  // namespace

Action add_metrics(CLI::App& app) {
  auto words = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  auto csv = std::make_shared<bool>(false);
  auto output = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("metrics", "The metrics entities reported (latest; every point with --csv or --json)");
  cmd->add_option("EXP_AND_ENTITIES", *words, "[EXP] [ENTITY or ENSEMBLE ...]");
  auto* j = cmd->add_flag("--json", *json, "every point as a JSON array");
  cmd->add_flag("--csv", *csv, "every point as CSV")->excludes(j);
  cmd->add_option("-o,--output", *output, "write to FILE instead of stdout");
  return [words, json, csv, output] {
    auto [path, names] = session::split_experiment_and_names(*words);
    const auto s = session::current_state(path);
    std::vector<const state::EntityRecord*> entities;
    for (const auto& e : s.manifest.entities) {
      if (e.type == state::EntityKind::Database || e.type == state::EntityKind::Batch) continue;
      bool wanted = names.empty();
      for (const auto& n : names) wanted = wanted || n == e.name || n == e.ensemble;
      if (wanted) entities.push_back(&e);
    }
    for (const auto& n : names) {
      bool known = false;
      for (const auto& e : s.manifest.entities) known = known || n == e.name || n == e.ensemble;
      if (!known) throw UsageError("no entity " + n + " in experiment " + s.manifest.experiment);
    }
    std::string text;
    if (*json || *csv) {
      std::vector<Row> rows;
      for (const auto* e : entities)
        for (auto& p : state::read_metrics(e->run_dir, e->name)) rows.push_back({e, std::move(p)});
      text = *json ? render_json(rows) : render_csv(rows);
    } else {
      text = render_latest(entities);
    }
    if (output->empty() || *output == "-") {
      std::cout << text;
    } else {
      write_user_file(*output, text);
    }
    return 0;
  };
}

}  // namespace ssim::app
