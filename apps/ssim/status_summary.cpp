#include "apps/ssim/status_summary.hpp"

#include <algorithm>
#include <map>

#include "apps/ssim/status_format.hpp"
#include "apps/ssim/status_table.hpp"

namespace ssim::app {

namespace {
std::string group_of(const state::EntityRecord& e) {
  return e.type == state::EntityKind::Database ? "(database)" : e.ensemble.empty() ? "(models)" : e.ensemble;
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

void print_status_summary(std::ostream& out, const state::Manifest& m, double now) {
  // One line per group: models together, each ensemble, the database.
  std::vector<std::string> order;
  std::map<std::string, std::map<state::Status, int>> counts;
  std::map<std::string, int> totals;
  for (const auto& e : m.entities) {
    const std::string group = group_of(e);
    if (!totals.count(group)) order.push_back(group);
    totals[group]++;
    counts[group][e.status]++;
  }
  size_t width = 5;
  for (const auto& g : order) width = std::max(width, g.size());
  for (const auto& g : order) {
    std::string line = g + std::string(width - g.size() + 2, ' ') + std::to_string(totals[g]) + " total:";
    for (state::Status s : state::kSummaryOrder)
      if (counts[g].count(s)) line += " " + std::to_string(counts[g][s]) + " " + to_string(s) + ",";
    line.pop_back();
    out << line << "\n";
  }
  std::vector<std::pair<double, const state::EntityRecord*>> ran;  // how long each ran
  std::vector<const state::EntityRecord*> failed;
  for (const auto& e : m.entities) {
    if (e.type == state::EntityKind::Database) continue;
    if (const double seconds = state::seconds_run(e, now); seconds >= 0) ran.emplace_back(seconds, &e);
    if (e.status == state::Status::Failed) failed.push_back(&e);
  }
  // The five slowest, in order: the rest need no order (a million members: a full sort was a tenth of the summary).
  const size_t slowest = std::min<size_t>(5, ran.size());
  std::partial_sort(ran.begin(), ran.begin() + static_cast<std::ptrdiff_t>(slowest), ran.end(),
                    [](const auto& a, const auto& b) { return a.first > b.first; });
  if (!ran.empty()) {
    out << "slowest:";
    for (size_t i = 0; i < slowest; ++i)
      out << (i ? ", " : " ") << ran[i].second->name << " " << clock_text(ran[i].first);
    out << "\n";
  }
  if (!failed.empty()) {
    out << "failed (" << failed.size() << "):";
    for (size_t i = 0; i < std::min<size_t>(20, failed.size()); ++i)
      out << (i ? ", " : " ") << failed[i]->name
          << (failed[i]->exit_code ? " (exit " + std::to_string(*failed[i]->exit_code) + ")" : "");
    if (failed.size() > 20) out << ", ...";
    out << "\n";
  }
}

}  // namespace ssim::app
