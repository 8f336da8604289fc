#include "lib/state/status_summary.hpp"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

namespace ssim::state {

namespace {

const std::string kModels = StatusSummary::kModelsGroup, kDatabase = StatusSummary::kDatabaseGroup;

// Keeps the `limit` best of what it is offered (best: `before`), in no particular order.
template <class Before>
void keep_best(std::vector<StatusSummary::Ran>& kept, StatusSummary::Ran r, size_t limit, Before before) {
  if (kept.size() < limit) return kept.push_back(std::move(r));
  auto worst = std::max_element(kept.begin(), kept.end(), before);
  if (before(r, *worst)) *worst = std::move(r);
}

}  // namespace

double StatusSummary::Ran::seconds(double now) const { return std::max(0.0, (end > 0 ? end : now) - start); }

std::vector<const StatusSummary::Ran*> StatusSummary::slowest(double now) const {
  std::vector<const Ran*> order;
  for (const auto& r : ran) order.push_back(&r);
  const size_t n = std::min(kSlowest, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                    [now](const Ran* a, const Ran* b) { return a->seconds(now) > b->seconds(now); });
  order.resize(n);
  return order;
}

StatusSummary summarise(const Manifest& m) {
  StatusSummary s;
  s.experiment = m.experiment;
  s.path = m.path;
  std::map<std::string, size_t> index;
  size_t at = 0;  // the group of the entity before: members of an ensemble come one after another
  std::vector<std::array<int, static_cast<size_t>(Status::Unknown) + 1>> tallies;  // per group, by status
  std::vector<StatusSummary::Ran> ended, running;
  const auto longer = [](const auto& a, const auto& b) { return a.end - a.start > b.end - b.start; };
  const auto earlier = [](const auto& a, const auto& b) { return a.start < b.start; };
  for (const auto& e : m.entities) {
    const std::string& group = e.type == EntityKind::Database ? kDatabase : e.ensemble.empty() ? kModels : e.ensemble;
    if (s.groups.empty() || s.groups[at].name != group) {
      auto [it, fresh] = index.emplace(group, s.groups.size());
      if (fresh) s.groups.push_back({group, 0, {}});
      at = it->second;
    }
    s.groups[at].total++;
    tallies.resize(s.groups.size());
    tallies[at][static_cast<size_t>(e.status)]++;
    if (e.type == EntityKind::Database) continue;
    if (e.status == Status::Failed && ++s.failed <= static_cast<int>(StatusSummary::kFailuresNamed))
      s.failures.push_back({e.name, e.exit_code});
    // As seconds_run counts them: an end recorded, or none (0 s) for one that ended without.
    if (e.start <= 0 || e.status == Status::New) continue;
    if (e.end > 0 || is_terminal(e.status))
      keep_best(ended, {e.name, e.start, e.end > 0 ? e.end : e.start}, StatusSummary::kSlowest, longer);
    else
      keep_best(running, {e.name, e.start, 0}, StatusSummary::kSlowest, earlier);
  }
  for (size_t g = 0; g < s.groups.size(); ++g)
    for (size_t status = 0; status < tallies[g].size(); ++status)
      if (tallies[g][status]) s.groups[g].counts[static_cast<Status>(status)] = tallies[g][status];
  s.ran = std::move(ended);
  s.ran.insert(s.ran.end(), running.begin(), running.end());
  return s;
}

std::string summary_path(const std::string& experiment_path) { return experiment_path + "/.ssim/summary.json"; }

std::string encode_summary_file(const SummaryFile& f) {
  nlohmann::json groups = nlohmann::json::array(), ran = nlohmann::json::array(), failures = nlohmann::json::array();
  for (const auto& g : f.summary.groups) {
    nlohmann::json counts = nlohmann::json::object();
    for (const auto& [status, n] : g.counts) counts[to_string(status)] = n;
    groups.push_back({{"name", g.name}, {"total", g.total}, {"counts", counts}});
  }
  for (const auto& r : f.summary.ran) ran.push_back({{"name", r.name}, {"start", r.start}, {"end", r.end}});
  for (const auto& x : f.summary.failures)
    failures.push_back({{"name", x.name}, {"exit_code", x.exit_code ? nlohmann::json(*x.exit_code) : nullptr}});
  return nlohmann::json{{"experiment", f.summary.experiment},
                        {"path", f.summary.path},
                        {"pid", f.pid},
                        {"host", f.host},
                        {"ticks", f.ticks},
                        {"written", f.written},
                        {"groups", groups},
                        {"ran", ran},
                        {"failed", f.summary.failed},
                        {"failures", failures}}
             .dump() +
         "\n";
}

std::optional<SummaryFile> decode_summary_file(const std::string& text) {
  try {
    const auto j = nlohmann::json::parse(text);
    SummaryFile f;
    f.pid = j.at("pid").get<int>();
    f.host = j.at("host").get<std::string>();
    f.ticks = j.at("ticks").get<std::string>();
    f.written = j.at("written").get<double>();
    auto& s = f.summary;
    s.experiment = j.at("experiment").get<std::string>();
    s.path = j.at("path").get<std::string>();
    for (const auto& g : j.at("groups")) {
      StatusSummary::Group group{g.at("name").get<std::string>(), g.at("total").get<int>(), {}};
      for (const auto& [status, n] : g.at("counts").items()) group.counts[status_from_string(status)] = n.get<int>();
      s.groups.push_back(std::move(group));
    }
    for (const auto& r : j.at("ran"))
      s.ran.push_back({r.at("name").get<std::string>(), r.at("start").get<double>(), r.at("end").get<double>()});
    s.failed = j.at("failed").get<int>();
    for (const auto& x : j.at("failures")) {
      const auto& code = x.at("exit_code");
      s.failures.push_back(
          {x.at("name").get<std::string>(), code.is_null() ? std::nullopt : std::optional<int>(code.get<int>())});
    }
    return f;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace ssim::state
