#include "apps/ssim/status_table.hpp"


#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "apps/ssim/status_format.hpp"
#include "lib/session/status_json.hpp"
#include "lib/state/metrics.hpp"
#include "lib/util/processes.hpp"
#include "lib/util/clock.hpp"

namespace ssim::app {

namespace {
std::string default_format(const std::vector<const state::EntityRecord*>& rows) {
  // PARAMS only when some entity has parameters.
  const bool params = std::any_of(rows.begin(), rows.end(), [](auto* e) { return !e->params.empty(); });
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

void print_status_table_with_metrics(std::ostream& out, std::vector<const state::EntityRecord*> rows,
                                     const std::string& format, const std::string& sort) {
  const StatusFormat f = parse_status_format(format.empty() ? default_format(rows) : format, true);
  const bool descending = !sort.empty() && sort[0] == '-';
  const std::string key = descending ? sort.substr(1) : sort;
  const StatusFormat by = key.empty() ? StatusFormat{} : parse_status_format(key, true);
  MetricColumns columns;
  if (!f.metrics.empty() || !by.metrics.empty())
    for (const auto* e : rows) {
      if (e->type == state::EntityKind::Database) continue;
      for (const auto& [name, point] : state::latest_metrics(state::read_metrics(e->run_dir, e->name))) {
        char text[32];
        std::snprintf(text, sizeof text, "%.6g", point.value);
        columns[e->name][name] = text;
      }
    }
  check_metric_fields(f, columns);
  if (!key.empty()) {
    check_metric_fields(by, columns);
    const double now = now_seconds();
    auto value = [&](const state::EntityRecord* e) {
      if (by.metrics.empty()) return status_field(*e, key, now);
      const auto it = columns.find(e->name);
      const auto v = it == columns.end() ? std::map<std::string, std::string>::const_iterator() : it->second.find(key);
      return it != columns.end() && v != it->second.end() ? v->second : std::string("-");
    };
    std::stable_sort(rows.begin(), rows.end(), [&](const state::EntityRecord* a, const state::EntityRecord* b) {
      const std::string va = value(a), vb = value(b);
      const bool ma = va == "-" || va.empty(), mb = vb == "-" || vb.empty();
      if (ma != mb) return mb;  // missing values last, either way
      if (ma) return false;
      const auto na = as_number(va), nb = as_number(vb);
      if (na && nb) return descending ? *na > *nb : *na < *nb;
      return descending ? va > vb : va < vb;
    });
  }
  for (const auto& line : format_status(f, rows, now_seconds(), columns)) out << line << "\n";
}

void print_status_table(std::ostream& out, const state::Manifest& m) {
  std::vector<const state::EntityRecord*> rows;
  for (const auto& e : m.entities) rows.push_back(&e);
  print_status_table(out, rows);
}

void print_where_they_stand(std::ostream& out, const state::Manifest& m, bool json) {
  if (json)
    out << session::status_json(m, std::nullopt).dump(2) << "\n";
  else
    print_status_table(out, m);
}

}  // namespace ssim::app
