#include "apps/ssim/status_table.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "apps/ssim/status_format.hpp"
#include <set>

#include "lib/state/metrics.hpp"
#include "lib/util/processes.hpp"
#include "lib/util/clock.hpp"

namespace ssim::app {

namespace {
std::string default_format(const std::vector<const state::EntityRecord*>& rows) {
  // PARAMS only when some entity has parameters.
  const bool params = std::any_of(rows.begin(), rows.end(), [](auto* e) { return !e->extra().params.empty(); });
  return std::string("name,type,job,status,exit,elapsed,nodes,") + (params ? "params," : "") + "note";
}

std::optional<double> as_number(const std::string& text) {
  if (text.empty() || text == "-") return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (*end != '\0') return std::nullopt;
  return v;
}
}  // namespace

void print_status_table(std::ostream& out, const std::vector<const state::EntityRecord*>& rows,
                        const std::string& format) {
  const std::string text = format.empty() ? default_format(rows) : format;
  for (const auto& line : format_status(parse_status_format(text), rows, now_seconds())) out << line << "\n";
}

namespace {
// The names of the members' parameters (columns too).
std::set<std::string> parameter_names(const std::vector<const state::EntityRecord*>& rows) {
  std::set<std::string> names;
  for (const auto* e : rows)
    for (const auto& [name, _] : e->extra().params) names.insert(name);
  return names;
}

// The latest value of every metric of `rows` that `need` asks for (all of them when it
// asks for any), by entity.
MetricColumns metric_columns(const std::vector<const state::EntityRecord*>& rows, bool need) {
  MetricColumns columns;
  if (!need) return columns;
  for (const auto* e : rows) {
    if (e->type == state::EntityKind::Database) continue;
    // Its parameters are columns (and sort keys) too: `-o name,workers,loss --sort workers`.
    for (const auto& [name, value] : e->extra().params) columns[e->name][name] = value;
    const auto points = state::read_metrics(*e);
    for (const auto& [name, point] : state::latest_metrics(points)) {
      char text[32];
      std::snprintf(text, sizeof text, "%.6g", point.value);
      columns[e->name][name] = text;
    }
    if (!e->goal) continue;
    auto& c = columns[e->name];
    if (e->job_id.empty() && e->attempt == 0) {  // never started: nothing was reached or missed
      c["goal"] = state::goal_text(*e->goal) + ": not started";
      c["time_to_goal"] = c["goal_step"] = "-";
      continue;
    }
    // goal, time_to_goal, goal_step: as the engine saw it reached, else from the points.
    const auto reached = state::goal_outcome(*e, points);
    c["goal"] = state::goal_text(*e->goal) + ": " + state::reached_text(reached);
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", reached ? reached->seconds : -1.0);
    c["time_to_goal"] = reached && reached->seconds >= 0 ? text : "-";
    c["goal_step"] = reached && reached->step ? std::to_string(*reached->step) : "-";
  }
  return columns;
}

// `rows` in the order of `sort` (a field or a metric, "-" first for descending), each
// with its value ("-" when it has none; those come last).
std::vector<SortedRow> sort_rows(std::vector<const state::EntityRecord*> rows, const std::string& sort,
                                 const MetricColumns& columns) {
  const bool descending = !sort.empty() && sort[0] == '-';
  const std::string key = descending ? sort.substr(1) : sort;
  const StatusFormat by = key.empty() ? StatusFormat{} : parse_status_format(key, true);
  std::vector<SortedRow> out;
  const double now = now_seconds();
  for (const auto* e : rows) {
    std::string v;
    if (key.empty())
      v = "";
    else if (by.metrics.empty())
      v = status_field(*e, key, now);
    else if (const auto it = columns.find(e->name); it != columns.end())
      if (const auto m = it->second.find(key); m != it->second.end()) v = m->second;
    out.push_back({e, v.empty() ? "-" : v});
  }
  if (key.empty()) return out;
  check_metric_fields(by, columns, parameter_names(rows));
  std::stable_sort(out.begin(), out.end(), [&](const SortedRow& a, const SortedRow& b) {
    const bool ma = a.value == "-", mb = b.value == "-";
    if (ma != mb) return mb;  // missing values last, either way
    if (ma) return false;
    const auto na = as_number(a.value), nb = as_number(b.value);
    if (na && nb) return descending ? *na > *nb : *na < *nb;
    return descending ? a.value > b.value : a.value < b.value;
  });
  return out;
}
}  // namespace

void print_status_table_with_metrics(std::ostream& out, std::vector<const state::EntityRecord*> rows,
                                     const std::string& format, const std::string& sort) {
  const StatusFormat f = parse_status_format(format.empty() ? default_format(rows) : format, true);
  const std::string key = !sort.empty() && sort[0] == '-' ? sort.substr(1) : sort;
  const StatusFormat by = key.empty() ? StatusFormat{} : parse_status_format(key, true);
  const MetricColumns columns = metric_columns(rows, !f.metrics.empty() || !by.metrics.empty());
  check_metric_fields(f, columns, parameter_names(rows));
  std::vector<const state::EntityRecord*> ordered;
  for (const auto& r : sort_rows(rows, sort, columns)) ordered.push_back(r.entity);
  for (const auto& line : format_status(f, ordered, now_seconds(), columns)) out << line << "\n";
}

std::vector<SortedRow> sorted_by(const std::vector<const state::EntityRecord*>& rows, const std::string& sort) {
  const std::string key = !sort.empty() && sort[0] == '-' ? sort.substr(1) : sort;
  const StatusFormat by = key.empty() ? StatusFormat{} : parse_status_format(key, true);
  return sort_rows(rows, sort, metric_columns(rows, !by.metrics.empty()));
}

void print_status_table(std::ostream& out, const state::Manifest& m) {
  std::vector<const state::EntityRecord*> rows;
  for (const auto& e : m.entities) rows.push_back(&e);
  print_status_table(out, rows);
}

}  // namespace ssim::app
