#include "apps/ssim/status_table.hpp"


#include <algorithm>
#include <cstdio>

#include "apps/ssim/status_format.hpp"
#include "lib/state/metrics.hpp"
#include "lib/util/processes.hpp"
#include "lib/util/clock.hpp"

namespace ssim::app {

void print_status_table(std::ostream& out, const std::vector<const state::EntityRecord*>& rows,
                        const std::string& format) {
  std::string text = format;
  if (text.empty()) {  // the default: PARAMS only when some entity has parameters
    const bool params = std::any_of(rows.begin(), rows.end(), [](auto* e) { return !e->params.empty(); });
    text = std::string("name,type,job,status,exit,elapsed,nodes,") + (params ? "params," : "") + "note";
  }
  for (const auto& line : format_status(parse_status_format(text), rows, now_seconds())) out << line << "\n";
}

void print_status_table_with_metrics(std::ostream& out, const std::vector<const state::EntityRecord*>& rows,
                                     const std::string& format) {
  const StatusFormat f = parse_status_format(format, true);
  MetricColumns columns;
  if (!f.metrics.empty())
    for (const auto* e : rows) {
      if (e->type == state::EntityKind::Database) continue;
      for (const auto& [name, point] : state::latest_metrics(state::read_metrics(e->run_dir, e->name))) {
        char text[32];
        std::snprintf(text, sizeof text, "%.6g", point.value);
        columns[e->name][name] = text;
      }
    }
  check_metric_fields(f, columns);
  for (const auto& line : format_status(f, rows, now_seconds(), columns)) out << line << "\n";
}

void print_status_table(std::ostream& out, const state::Manifest& m) {
  std::vector<const state::EntityRecord*> rows;
  for (const auto& e : m.entities) rows.push_back(&e);
  print_status_table(out, rows);
}

}  // namespace ssim::app
