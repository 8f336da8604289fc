#include "apps/ssim/status_summary.hpp"

#include <algorithm>
#include <map>

#include "apps/ssim/status_format.hpp"

namespace ssim::app {

void print_status_summary(std::ostream& out, const state::Manifest& m, double now) {
  // One line per group: models together, each ensemble, the database.
  std::vector<std::string> order;
  std::map<std::string, std::map<state::Status, int>> counts;
  std::map<std::string, int> totals;
  for (const auto& e : m.entities) {
    const std::string group = e.type == state::EntityKind::Database ? "(database)" : e.ensemble.empty() ? "(models)" : e.ensemble;
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
  std::vector<const state::EntityRecord*> ran, failed;
  for (const auto& e : m.entities) {
    if (e.type == state::EntityKind::Database) continue;
    if (state::seconds_run(e, now) >= 0) ran.push_back(&e);
    if (e.status == state::Status::Failed) failed.push_back(&e);
  }
  std::sort(ran.begin(), ran.end(), [&](auto* a, auto* b) { return state::seconds_run(*a, now) > state::seconds_run(*b, now); });
  if (!ran.empty()) {
    out << "slowest:";
    for (size_t i = 0; i < std::min<size_t>(5, ran.size()); ++i)
      out << (i ? ", " : " ") << ran[i]->name << " " << clock_text(state::seconds_run(*ran[i], now));
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
