#include "apps/ssim/dashboard_routes.hpp"

#include "lib/state/start_journal.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <cmath>
#include <mutex>
#include <sstream>

#include "lib/session/current_state.hpp"
#include "lib/session/experiment_summary.hpp"
#include "lib/session/logs.hpp"
#include "lib/session/launch_record.hpp"
#include "lib/session/report_input.hpp"
#include "lib/util/errors.hpp"
#include "apps/ssim/status_table.hpp"
#include "lib/session/status_json.hpp"
#include "lib/state/history.hpp"
#include "lib/orchestrator/shard_samples.hpp"
#include "lib/report/curves.hpp"
#include "lib/state/metrics.hpp"
#include "lib/util/split.hpp"

namespace ssim::app {
using namespace ssim::session;

namespace {

constexpr size_t kLogChunk = 64 * 1024;

HttpReply error(int status, const std::string& message) {
  return {status, "application/json", nlohmann::json{{"error", message}}.dump()};
}

// Equal strings in a time that does not depend on where they differ.
bool same(const std::string& a, const std::string& b) {
  unsigned diff = a.size() ^ b.size();
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::vector<std::string> served(const Dashboard& d) {
  return d.experiments.empty() ? state::experiment_paths() : d.experiments;
}

bool serves(const Dashboard& d, const std::string& path) {
  const auto all = served(d);
  return !path.empty() && std::find(all.begin(), all.end(), path) != all.end();
}

// A finished experiment that no ssim process tracks changes only if its manifest (or
// start journal) does: its status document is kept and served again until then. A
// 5,000-member manifest takes ~150 ms to read and render; browsers ask every 2 s.
struct CachedStatus {
  std::string key;
  std::string body;
};
std::mutex cache_mutex;
std::map<std::string, CachedStatus> status_cache;

std::string file_key(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "-";
  return std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + ":" +
         std::to_string(st.st_size);
}

std::string status_body(const std::string& exp) {
  const std::string key = file_key(state::manifest_path(exp)) + "/" + file_key(state::start_journal_path(exp));
  {
    std::lock_guard<std::mutex> hold(cache_mutex);
    const auto it = status_cache.find(exp);
    if (it != status_cache.end() && it->second.key == key && !state::RunLock::holder(exp)) return it->second.body;
  }
  const CurrentState s = current_state(exp);
  std::ostringstream text;  // an entity at a time: 100,000 of them took two seconds as one document
  write_status_json(text, s.manifest, s.runner, -1, {}, {{"running", s.runner.has_value() && !s.all_ended}});
  std::string body = std::move(text).str();
  if (s.all_ended && !s.runner) {
    std::lock_guard<std::mutex> hold(cache_mutex);
    // Keyed after current_state, which may itself have saved the manifest.
    status_cache[exp] = {file_key(state::manifest_path(exp)) + "/" + file_key(state::start_journal_path(exp)), body};
  }
  return body;
}

HttpReply logs(const std::string& path, const Target& t) {
  const auto entity = t.query.count("entity") ? t.query.at("entity") : "";
  const std::string stream = t.query.count("stream") ? t.query.at("stream") : "out";
  if (stream != "out" && stream != "err") return error(400, "stream is out or err");
  session::EntityOutput output;
  try {
    output = session::entity_output(path, entity, stream == "err");
  } catch (const UsageError&) {
    return error(404, "no entity \"" + entity + "\"");
  }
  const long offset = t.query.count("offset") ? std::atol(t.query.at("offset").c_str()) : 0;
  const auto chunk = session::read_output_chunk(output, offset, kLogChunk);
  // Invalid UTF-8 from a program must not break the JSON: replaced, not refused.
  const std::string text = nlohmann::json(chunk.data).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return {200, "application/json",
          "{\"data\":" + text + ",\"offset\":" + std::to_string(chunk.next) +
              ",\"ended\":" + (output.ended ? "true" : "false") + "}"};
}

// /api/metrics?exp=PATH&entity=NAME: {"series": [{"entity", "metric", "rank", "params",
// "points": [[step, value, seconds], ...]}], "goals": {...}}, as lib/report/curves.js draws
// them, at most 300 points a series (thinned evenly), for the detail's live curves.
// ensemble=NAME instead: its members overlaid, every rank of the first 40 that reported;
// with where=PARAM=VALUE, only the members with that parameter value.
constexpr size_t kOverlaidMembers = 40;

void add_series(const state::EntityRecord& e, nlohmann::json& out) {
  report::add_curves(e, state::curve_series(state::read_metrics(e), e.start, 300), out);
}

HttpReply metrics(const std::string& path, const Target& t) {
  const auto m = state::load_manifest(path);
  nlohmann::json series = nlohmann::json::array();
  if (t.query.count("ensemble")) {
    const std::string& ensemble = t.query.at("ensemble");
    const std::string where = t.query.count("where") ? t.query.at("where") : "";
    const size_t eq = where.find('=');
    if (!where.empty() && eq == std::string::npos) return error(400, "where is PARAM=VALUE");
    const std::string param = where.substr(0, eq), value = eq == std::string::npos ? "" : where.substr(eq + 1);
    size_t members = 0, overlaid = 0;
    std::vector<const state::EntityRecord*> goal_of;
    for (const auto& e : m.entities) {
      if (e.ensemble != ensemble || e.ensemble.empty()) continue;
      if (!where.empty()) {
        const auto it = e.extra().params.find(param);
        if (it == e.extra().params.end() || it->second != value) continue;
      }
      ++members;
      if (overlaid >= kOverlaidMembers) continue;
      const size_t before = series.size();
      add_series(e, series);
      if (series.size() > before) ++overlaid, goal_of.push_back(&e);
    }
    if (!members)
      return error(404, where.empty() ? "no ensemble \"" + ensemble + "\""
                                      : "no member of \"" + ensemble + "\" has " + param + "=" + value);
    nlohmann::json doc{{"ensemble", ensemble},
                       {"members", members},
                       {"overlaid", overlaid},
                       {"series", std::move(series)},
                       {"goals", report::goals_json(goal_of)}};
    if (!where.empty()) doc["where"] = {{"param", param}, {"value", value}};
    return {200, "application/json", doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
  }
  const auto entity = t.query.count("entity") ? t.query.at("entity") : "";
  const auto* e = m.find(entity);
  if (!e) return error(404, "no entity \"" + entity + "\"");
  add_series(*e, series);
  return {200, "application/json",
          nlohmann::json{{"entity", entity}, {"series", std::move(series)}, {"goals", report::goals_json({e})}}.dump(
              -1, ' ', false, nlohmann::json::error_handler_t::replace)};
}

// /api/database?exp=PATH: {"shards": [{"shard", "latest": {sample}, "series": [[time,
// used_memory, ops_per_sec, connected_clients], ...]}]}, the last kDatabasePoints samples
// of each shard, for the live database panel (the engine writes a sample every few seconds).
constexpr size_t kDatabasePoints = 120;

HttpReply database(const std::string& path) {
  std::map<std::string, std::vector<nlohmann::json>> by_shard;
  for (auto& sample : orchestrator::read_samples(path)) {
    const std::string shard = sample.value("shard", "");
    auto& list = by_shard[shard];
    list.push_back(std::move(sample));
    if (list.size() > 2 * kDatabasePoints) list.erase(list.begin(), list.end() - kDatabasePoints);
  }
  nlohmann::json shards = nlohmann::json::array();
  for (auto& [shard, list] : by_shard) {
    if (list.size() > kDatabasePoints) list.erase(list.begin(), list.end() - kDatabasePoints);
    nlohmann::json series = nlohmann::json::array();
    for (const auto& x : list)
      series.push_back({x.value("time", 0.0), x.value("used_memory", 0.0), x.value("ops_per_sec", 0.0),
                        x.value("connected_clients", 0.0)});
    shards.push_back({{"shard", shard}, {"latest", list.back()}, {"series", std::move(series)}});
  }
  return {200, "application/json", nlohmann::json{{"shards", std::move(shards)}}.dump()};
}

}  // namespace

std::string url_decode(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+')
      out += ' ';
    else if (text[i] == '%' && i + 2 < text.size() + 0 && std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
             std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else
      out += text[i];
  }
  return out;
}

Target parse_target(const std::string& target) {
  Target t;
  const size_t q = target.find('?');
  t.path = url_decode(target.substr(0, q));
  if (q == std::string::npos) return t;
  for (const auto& pair : split(target.substr(q + 1), '&')) {
    const size_t eq = pair.find('=');
    if (!pair.empty())
      t.query[url_decode(pair.substr(0, eq))] = eq == std::string::npos ? "" : url_decode(pair.substr(eq + 1));
  }
  return t;
}

bool shows_token(const Dashboard& d, const Target& t, const std::string& authorization) {
  const std::string bearer = authorization.rfind("Bearer ", 0) == 0 ? authorization.substr(7) : "";
  const std::string token = t.query.count("token") ? t.query.at("token") : bearer;
  return same(token, d.token);
}

// /api/launch?exp=PATH&entity=NAME: {"entity", "command", "argv": [...], "env": [[name,
// value], ...], "masked"}: what the entity was started with (the launch log), secrets
// masked; 404 before it started.
HttpReply launch(const std::string& path, const Target& t) {
  const auto m = state::load_manifest(path);
  const auto entity = t.query.count("entity") ? t.query.at("entity") : "";
  const auto* e = m.find(entity);
  if (!e) return error(404, "no entity \"" + entity + "\"");
  const auto r = session::launch_record(m.path, e->run_dir);
  if (!r) return error(404, entity + " has not started yet");
  nlohmann::json doc{
      {"entity", entity}, {"command", r->command}, {"argv", r->argv}, {"env", r->env}, {"masked", r->masked}};
  return {200, "application/json", doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
}

HttpReply handle_request(const Dashboard& d, const std::string& method, const std::string& target,
                         const std::string& authorization) {
  const Target t = parse_target(target);
  if (!shows_token(d, t, authorization))
    return error(403, "this dashboard needs the token of the URL ssim dashboard printed");
  if (method != "GET") return error(405, "the dashboard is read-only");
  try {
    if (t.path == "/") return {200, "text/html; charset=utf-8", dashboard_page()};
    if (t.path == "/api/experiments") {
      nlohmann::json all = nlohmann::json::array();
      for (const auto& p : served(d))  // a folder removed since (the history remembers it) is not listed
        if (std::filesystem::exists(state::manifest_path(p))) all.push_back(experiment_summary(p));
      return {200, "application/json", all.dump()};
    }
    const std::string exp = t.query.count("exp") ? t.query.at("exp") : "";
    if (t.path != "/api/status" && t.path != "/api/logs" && t.path != "/api/metrics" && t.path != "/api/database" &&
        t.path != "/api/launch" && t.path != "/report")
      return error(404, "no such page");
    if (!serves(d, exp)) return error(404, "this dashboard does not serve \"" + exp + "\"");
    if (t.path == "/api/logs") return logs(exp, t);
    if (t.path == "/api/metrics") return metrics(exp, t);
    if (t.path == "/api/database") return database(exp);
    if (t.path == "/api/launch") return launch(exp, t);
    if (t.path == "/api/status") return {200, "application/json", status_body(exp)};
    return {200, "text/html; charset=utf-8", experiment_report(exp)};
  } catch (const std::exception& e) {
    return error(500, e.what());
  }
}

}  // namespace ssim::app
