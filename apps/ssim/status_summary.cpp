#include "apps/ssim/status_summary.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include "apps/ssim/status_format.hpp"
#include "apps/ssim/status_table.hpp"

namespace ssim::app {

namespace {
std::string group_of(const state::EntityRecord& e) {
  // As the summary groups them (lib/state/status_summary.hpp).
  return e.type == state::EntityKind::Database ? state::StatusSummary::kDatabaseGroup
         : e.ensemble.empty()                  ? state::StatusSummary::kModelsGroup
                                               : e.ensemble;
}

std::string with_params(const state::EntityRecord& e, const std::string& value) {
  std::string text = e.name + " " + value;
  if (e.extra().params.empty()) return text;
  text += " (";
  for (const auto& [k, v] : e.extra().params) text += k + "=" + v + ", ";
  text.resize(text.size() - 2);
  return text + ")";
}
}  // namespace

void print_best_and_worst(std::ostream& out, const state::Manifest& m, const std::string& sort) {
  std::vector<const state::EntityRecord*> rows;
  for (const auto& e : m.entities)
    if (e.type != state::EntityKind::Database) rows.push_back(&e);
  const auto sorted = sorted_by(rows, sort);
  std::vector<std::string> order;
  std::map<std::string, std::vector<const SortedRow*>> valued;
  for (const auto& r : sorted) {
    const std::string g = group_of(*r.entity);
    if (!valued.count(g)) order.push_back(g);
    auto& list = valued[g];
    if (r.value != "-") list.push_back(&r);
  }
  const std::string key = sort[0] == '-' ? sort.substr(1) : sort;
  for (const auto& g : order) {
    const auto& list = valued[g];
    if (list.empty()) continue;
    out << g << " by " << sort << ": best " << with_params(*list.front()->entity, list.front()->value);
    if (list.size() > 1) out << "; worst " << with_params(*list.back()->entity, list.back()->value);
    out << " (" << list.size() << " with " << key << ")\n";
  }
}

void print_status_summary(std::ostream& out, const state::StatusSummary& s, double now) {
  size_t width = 5;
  for (const auto& g : s.groups) width = std::max(width, g.name.size());
  for (const auto& g : s.groups) {
    std::string line = g.name + std::string(width - g.name.size() + 2, ' ') + std::to_string(g.total) + " total:";
    for (state::Status status : state::kSummaryOrder)
      if (const auto n = g.counts.find(status); n != g.counts.end())
        line += " " + std::to_string(n->second) + " " + to_string(status) + ",";
    line.pop_back();
    out << line << "\n";
  }
  if (const auto slowest = s.slowest(now); !slowest.empty()) {
    out << "slowest:";
    for (size_t i = 0; i < slowest.size(); ++i)
      out << (i ? ", " : " ") << slowest[i]->name << " " << clock_text(slowest[i]->seconds(now));
    out << "\n";
  }
  if (s.failed) {
    out << "failed (" << s.failed << "):";
    for (size_t i = 0; i < s.failures.size(); ++i)
      out << (i ? ", " : " ") << s.failures[i].name
          << (s.failures[i].exit_code ? " (exit " + std::to_string(*s.failures[i].exit_code) + ")" : "");
    if (s.failed > static_cast<int>(s.failures.size())) out << ", ...";
    out << "\n";
  }
}

}  // namespace ssim::app
