// ssim metrics [EXP] [ENTITY ...] [--json | --csv] [-o FILE]: every metric point the
// entities reported (lib/state/metrics.hpp): by default the latest value of each metric
// per entity; --csv and --json every point, for pandas or a spreadsheet. --archive FILE:
// one tar with the metrics, the experiment file, the manifest and every entity's output.
#include <algorithm>
#include <ctime>
#include <filesystem>
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
#include "lib/util/tar_writer.hpp"
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

// EXP/experiment.yaml, EXP/manifest.json, EXP/metrics.csv, then each entity's own files
// (NAME.out, NAME.err, metrics.RANK.ndjson) under its run directory's place in EXP/.
void write_archive(const std::string& file, const state::Manifest& m,
                   const std::vector<const state::EntityRecord*>& entities, const std::vector<Row>& rows) {
  namespace fs = std::filesystem;
  const std::string top = m.experiment.empty() ? "experiment" : m.experiment;
  const long now = static_cast<long>(std::time(nullptr));
  size_t files = 0;
  write_user_file_streamed(file, [&](const std::function<void(std::string_view)>& write) {
    TarWriter tar(write);
    if (tar.add_file(top + "/experiment.yaml", m.file)) ++files;
    if (tar.add_file(top + "/manifest.json", state::manifest_path(m.path))) ++files;
    tar.add_text(top + "/metrics.csv", render_csv(rows), now);
    ++files;
    for (const auto* e : entities) {
      const std::string where = fs::path(e->run_dir).lexically_relative(m.path).string();
      const std::string base = top + "/" + (where.empty() || where.rfind("..", 0) == 0 ? e->name : where) + "/";
      std::vector<std::string> names = {e->name + ".out", e->name + ".err"};
      std::error_code ec;
      for (const auto& f : fs::directory_iterator(e->run_dir, ec)) {
        const std::string n = f.path().filename().string();
        if (n.rfind("metrics.", 0) == 0 && n.size() > 15 && n.substr(n.size() - 7) == ".ndjson") names.push_back(n);
      }
      for (const auto& n : names)
        if (tar.add_file(base + n, e->run_dir + "/" + n)) ++files;
    }
    tar.finish();
  });
  std::cerr << "ssim: wrote " << file << ": " << files << " files (the experiment file, the manifest, every metric point "
            << "as metrics.csv, and " << entities.size() << " entities' output)" << std::endl;
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
  auto* o = cmd->add_option("-o,--output", *output, "write to FILE instead of stdout");
  auto archive = std::make_shared<std::string>();
  cmd->add_option("--archive", *archive,
                  "write one tar FILE: the metrics, the experiment file, the manifest and every entity's output")
      ->excludes(j)
      ->excludes(o);
  return [words, json, csv, output, archive] {
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
    const auto every_point = [&] {
      std::vector<Row> rows;
      for (const auto* e : entities)
        for (auto& p : state::read_metrics(e->run_dir, e->name)) rows.push_back({e, std::move(p)});
      return rows;
    };
    if (!archive->empty()) {
      if (*csv) throw UsageError("--archive has the metrics as CSV already: drop --csv");
      write_archive(*archive, s.manifest, entities, every_point());
      return 0;
    }
    std::string text;
    if (*json || *csv) {
      const auto rows = every_point();
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
