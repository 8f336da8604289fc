#include "apps/ssim/status_format.hpp"

#include <set>

#include "lib/state/job_id.hpp"
#include "lib/state/metrics.hpp"

#include <algorithm>
#include <cstdio>

#include "lib/util/processes.hpp"
#include "lib/spec/suggest.hpp"
#include "lib/util/errors.hpp"
#include "lib/util/split.hpp"

namespace ssim::app {

const std::vector<std::pair<std::string, std::string>>& status_field_help() {
  static const std::vector<std::pair<std::string, std::string>> fields = {
      {"name", "entity name"},
      {"type", "database, model, member or batch"},
      {"ensemble", "its ensemble"},
      {"job", "pid, or the scheduler's id"},
      {"status", "new, pending, running, completed, failed, cancelled"},
      {"exit", "exit code or signal"},
      {"elapsed", "run time as [D-]HH:MM:SS"},
      {"seconds", "run time in seconds"},
      {"start", "start time (epoch seconds)"},
      {"end", "end time (epoch seconds)"},
      {"nodes", "where it runs or ran"},
      {"params", "its parameter values, k=v,..."},
      {"attempt", "1 for the first run, more after retries and --resume"},
      {"note", "why it failed or was cancelled; a completed one's remarks (stopped on its goal, metric points lost)"},
      {"run_dir", "its run directory"},
  };
  // goal, time_to_goal and goal_step (an entity with a goal:) are read with the metrics.
  return fields;
}

namespace {
bool known(const std::string& field) {
  for (const auto& [name, _] : status_field_help())
    if (name == field) return true;
  return false;
}

std::string field_list() {
  std::string s;
  for (const auto& [name, _] : status_field_help()) s += (s.empty() ? "" : ", ") + name;
  return s;
}

void add_field(StatusFormat& f, const std::string& field, bool metrics) {
  if (!known(field)) {
    if (!metrics || !state::valid_metric_name(field))
      throw UsageError("unknown status field \"" + field + "\" (fields: " + field_list() + ")");
    f.metrics.push_back(field);
  }
  f.fields.push_back(field);
}
}  // namespace

void check_metric_fields(const StatusFormat& f, const MetricColumns& columns, const std::set<std::string>& parameters) {
  std::set<std::string> reported;
  for (const auto& [entity, values] : columns)
    for (const auto& [name, value] : values) reported.insert(name);
  for (const auto& m : f.metrics) {
    if (reported.count(m)) continue;
    std::string names, params;
    for (const auto& r : reported)
      (parameters.count(r) ? params : names) += ((parameters.count(r) ? params : names).empty() ? "" : ", ") + r;
    std::vector<std::string> candidates(reported.begin(), reported.end());
    for (const auto& [name, _] : status_field_help()) candidates.push_back(name);
    const std::string near = spec::closest_match(m, candidates);
    throw UsageError("unknown status field \"" + m + "\"" + (near.empty() ? "" : " (did you mean " + near + "?)") +
                     " (fields: " + field_list() + "; metrics reported: " + (names.empty() ? "none" : names) +
                     (params.empty() ? "" : "; parameters: " + params) + ")");
  }
}

StatusFormat parse_status_format(const std::string& text, bool metrics) {
  StatusFormat f;
  if (text.find('{') == std::string::npos) {  // "name,status,elapsed"
    for (std::string name : split(text, ',')) {
      name.erase(0, name.find_first_not_of(' '));
      name.erase(name.find_last_not_of(' ') + 1);
      if (name.empty()) continue;
      f.literals.push_back(f.fields.empty() ? "" : "  ");
      add_field(f, name, metrics);
    }
    f.literals.push_back("");
  } else {
    std::string literal;
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] != '{') {
        literal += text[i];
        continue;
      }
      const size_t close = text.find('}', i);
      if (close == std::string::npos) throw UsageError("status format \"" + text + "\": a { is not closed");
      f.literals.push_back(literal);
      literal.clear();
      add_field(f, text.substr(i + 1, close - i - 1), metrics);
      i = close;
    }
    f.literals.push_back(literal);
  }
  if (f.fields.empty())
    throw UsageError("status format \"" + text + "\" names no field (fields: " + field_list() + ")");
  return f;
}

std::string clock_text(double seconds) {
  if (seconds < 0) return "-";
  const long s = static_cast<long>(seconds);
  char buf[48];
  if (s >= 86400)
    std::snprintf(buf, sizeof buf, "%ld-%02ld:%02ld:%02ld", s / 86400, s % 86400 / 3600, s % 3600 / 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%02ld:%02ld:%02ld", s / 3600, s % 3600 / 60, s % 60);
  return buf;
}

std::string status_field(const state::EntityRecord& e, const std::string& field, double now) {
  auto or_dash = [](const std::string& s) { return s.empty() ? std::string("-") : s; };
  if (field == "name") return e.name;
  if (field == "type") return to_string(e.type);
  if (field == "ensemble") return or_dash(e.ensemble);
  if (field == "job") {
    // A node agent's members share its step: their own pid tells them apart.
    const state::JobId id = state::parse_job_id(e.job_id);
    const bool shared_step = id.is(state::JobId::Kind::Agent);
    if (!e.extra().native_id.empty() && !(shared_step && e.pid)) return e.extra().native_id;
    return e.pid ? std::to_string(e.pid) : id.label(host_name());
  }
  if (field == "status") return to_string(e.status);
  if (field == "exit") return e.signal ? signal_name(*e.signal) : e.exit_code ? std::to_string(*e.exit_code) : "-";
  if (field == "elapsed") return clock_text(state::seconds_run(e, now));
  if (field == "seconds") {
    const double s = state::seconds_run(e, now);
    if (s < 0) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", s);
    return buf;
  }
  if (field == "start" || field == "end") {
    const double t = field == "start" ? e.start : e.end;
    if (t <= 0) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", t);
    return buf;
  }
  if (field == "nodes") return or_dash(e.nodes);
  if (field == "params") {
    std::string s;
    for (const auto& [k, v] : e.extra().params) s += (s.empty() ? "" : ",") + k + "=" + v;
    return or_dash(s);
  }
  if (field == "attempt") return std::to_string(e.attempt);
  if (field == "note") return e.reason;  // a completed one's too: stopped on its goal, points lost
  if (field == "run_dir") return e.run_dir;
  throw UsageError("unknown status field \"" + field + "\"");
}

std::vector<std::string> format_status(const StatusFormat& f, const std::vector<const state::EntityRecord*>& rows,
                                       double now, const MetricColumns& metrics) {
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> head;
  for (const auto& field : f.fields) {
    std::string h = field;
    std::transform(h.begin(), h.end(), h.begin(), ::toupper);
    head.push_back(h);
  }
  cells.push_back(head);
  for (const auto* e : rows) {
    std::vector<std::string> row;
    for (const auto& field : f.fields) {
      if (std::find(f.metrics.begin(), f.metrics.end(), field) == f.metrics.end()) {
        row.push_back(status_field(*e, field, now));
        continue;
      }
      const auto entity = metrics.find(e->name);
      const auto value =
          entity == metrics.end() ? std::map<std::string, std::string>::const_iterator() : entity->second.find(field);
      row.push_back(entity != metrics.end() && value != entity->second.end() ? value->second : "-");
    }
    cells.push_back(std::move(row));
  }
  std::vector<size_t> width(f.fields.size(), 0);
  for (const auto& row : cells)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  std::vector<std::string> lines;
  for (const auto& row : cells) {
    std::string s;
    for (size_t c = 0; c < row.size(); ++c) {
      s += f.literals[c] + row[c];
      if (c + 1 < row.size()) s += std::string(width[c] - row[c].size(), ' ');  // the last is not padded
    }
    s += f.literals.back();
    while (!s.empty() && s.back() == ' ') s.pop_back();
    lines.push_back(std::move(s));
  }
  return lines;
}

}  // namespace ssim::app
