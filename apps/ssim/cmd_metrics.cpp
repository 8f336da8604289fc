// ssim metrics [EXP] [ENTITY ...] [--json | --csv] [-o FILE]: every metric point the
// entities reported (lib/state/metrics.hpp): by default the latest value of each metric
// per entity; --csv and --json every point, for pandas or a spreadsheet. --archive FILE:
// one tar with the metrics, the experiment file, the manifest and every entity's output.
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <cstdlib>
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
#include "lib/session/entity_names.hpp"
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

constexpr const char* kCsvHeader = "entity,ensemble,rank,metric,value,step,epoch,phase,time,source\n";

std::string csv_rows(const std::vector<Row>& rows) {
  std::string out;
  for (const auto& r : rows) {
    const auto& p = r.point;
    out += csv_field(r.entity->name) + "," + csv_field(r.entity->ensemble) + "," + std::to_string(p.rank) + "," +
           csv_field(p.name) + "," + number_text(p.value) + "," + opt(p.step) + "," + opt(p.epoch) + "," +
           csv_field(p.phase) + "," + (p.time > 0 ? number_text(p.time) : "") + "," + p.source + "\n";
  }
  return out;
}

// Each point as one line of the JSON array ("{...},\n" but the last of all).
std::string json_items(const std::vector<Row>& rows, bool& first) {
  std::string out;
  for (const auto& r : rows) {
    const auto& p = r.point;
    nlohmann::json j = {{"entity", r.entity->name}, {"ensemble", r.entity->ensemble},
                        {"rank", p.rank},           {"metric", p.name},
                        {"value", p.value},         {"source", p.source}};
    j["step"] = p.step ? nlohmann::json(*p.step) : nlohmann::json();
    j["epoch"] = p.epoch ? nlohmann::json(*p.epoch) : nlohmann::json();
    j["phase"] = p.phase;
    j["time"] = p.time > 0 ? nlohmann::json(p.time) : nlohmann::json();
    out += (first ? "" : ",\n") + j.dump();
    first = false;
  }
  return out;
}

// Every point of `entities` as CSV or a JSON array, handed out entity by entity: never
// every point at once (5 million points held 1.3 GB).
void stream_points(const std::vector<const state::EntityRecord*>& entities, bool json,
                   const std::function<void(std::string_view)>& write) {
  write(json ? "[\n" : kCsvHeader);
  bool first = true;
  for (const auto* e : entities) {
    std::vector<Row> rows;
    for (auto& p : state::read_metrics(*e)) rows.push_back({e, std::move(p)});
    if (!rows.empty()) write(json ? json_items(rows, first) : csv_rows(rows));
  }
  write(json ? "\n]\n" : "");
}

std::string render_latest(const std::vector<const state::EntityRecord*>& entities) {
  std::vector<std::vector<std::string>> cells = {{"ENTITY", "METRIC", "LATEST", "STEP", "POINTS"}};
  for (const auto* e : entities) {
    const auto points = state::read_metrics(*e);
    std::map<std::string, size_t> count;
    for (const auto& p : points) ++count[p.name];
    for (const auto& [name, p] : state::latest_metrics(points))
      cells.push_back(
          {e->name, name, number_text(p.value), p.step ? std::to_string(*p.step) : "-", std::to_string(count[name])});
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
                   const std::vector<const state::EntityRecord*>& entities) {
  namespace fs = std::filesystem;
  const std::string top = m.experiment.empty() ? "experiment" : m.experiment;
  size_t files = 0;
  write_user_file_streamed(file, [&](const std::function<void(std::string_view)>& write) {
    TarWriter tar(write);
    if (tar.add_file(top + "/experiment.yaml", m.file)) ++files;
    if (tar.add_file(top + "/manifest.json", state::manifest_path(m.path))) ++files;
    // A tar member's size comes first: the CSV goes through a temporary file, not memory.
    // In $TMPDIR (a cluster's /tmp may be small or shared), else /tmp.
    std::error_code ec;
    const std::string tmp = std::filesystem::temp_directory_path(ec).string();
    std::string scratch = (ec || tmp.empty() ? std::string("/tmp") : tmp) + "/ssim-metrics-XXXXXX";
    const int fd = ::mkstemp(scratch.data());
    if (fd < 0) throw EnvironmentError("cannot make a temporary file " + scratch + ": " + std::strerror(errno));
    struct Removed {
      const std::string& path;
      ~Removed() { ::unlink(path.c_str()); }
    } removed{scratch};
    {
      std::ofstream csv(scratch, std::ios::binary);
      ::close(fd);
      stream_points(entities, false, [&](std::string_view piece) {
        csv.write(piece.data(), static_cast<std::streamsize>(piece.size()));
      });
      if (!csv.flush()) throw EnvironmentError(std::string("cannot write ") + scratch + " (the disk may be full)");
    }
    if (tar.add_file(top + "/metrics.csv", scratch)) ++files;
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
  std::cerr << "ssim: wrote " << file << ": " << files
            << " files (the experiment file, the manifest, every metric point "
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
      for (const auto& n : names) wanted = wanted || state::selects(n, e);
      if (wanted) entities.push_back(&e);
    }
    session::refuse_unknown_names(s.manifest, names);
    if (!archive->empty()) {
      if (*csv) throw UsageError("--archive has the metrics as CSV already: drop --csv");
      write_archive(*archive, s.manifest, entities);
      return 0;
    }
    const bool to_stdout = output->empty() || *output == "-";
    if (*json || *csv) {
      const auto produce = [&](const std::function<void(std::string_view)>& write) {
        stream_points(entities, *json, write);
      };
      if (to_stdout)
        produce(
            [](std::string_view piece) { std::cout.write(piece.data(), static_cast<std::streamsize>(piece.size())); });
      else
        write_user_file_streamed(*output, produce);
      return 0;
    }
    const std::string text = render_latest(entities);
    if (to_stdout)
      std::cout << text;
    else
      write_user_file(*output, text);
    return 0;
  };
}

}  // namespace ssim::app
