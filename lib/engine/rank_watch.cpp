#include "lib/engine/rank_watch.hpp"

#include <cstdio>
#include <set>

namespace ssim::engine {

std::optional<std::string> RankWatch::verdict(const std::string& name, const std::vector<state::RankEnd>& ends,
                                              int ranks, const std::vector<std::string>& nodes, double now) {
  if (!state::first_failed_rank(ends)) return std::nullopt;
  const auto [it, first] = failing_since_.emplace(name, now);
  if (now - it->second < grace_) return std::nullopt;
  return describe_ranks_left_running(ends, ranks, nodes, grace_);
}

std::string describe_ranks_left_running(const std::vector<state::RankEnd>& ends, int ranks,
                                        const std::vector<std::string>& nodes, double grace) {
  // Of several records, the one that failed first; a lone record speaks for itself.
  const auto failed = state::first_failed_rank(ends);
  std::string s = ends.size() >= 2 ? state::describe_rank_failure(ends)
                  : failed         ? state::describe_rank_end(*failed)
                                   : std::string();
  std::set<int> ended;
  std::set<std::string> hosts_heard;
  for (const auto& e : ends) ended.insert(e.rank), hosts_heard.insert(e.host);
  std::string never;
  int count = 0;
  for (int r = 0; r < ranks; ++r)
    if (!ended.count(r)) {
      if (count < 8) never += (count ? ", " : "") + std::to_string(r);
      ++count;
    }
  if (count > 8) never += " and " + std::to_string(count - 8) + " more";
  if (count > 0) s += std::string("; rank") + (count > 1 ? "s " : " ") + never + " never ended";
  std::string silent;
  for (const auto& node : nodes)
    if (!node.empty() && !hosts_heard.count(node)) silent += (silent.empty() ? "" : ", ") + node;
  if (!silent.empty() && count > 0)
    s += " (no rank on " + silent +
         " recorded an end: " + (silent.find(',') == std::string::npos ? "the node" : "those nodes") + " may be lost)";
  char g[32];
  std::snprintf(g, sizeof g, "%.0f", grace);
  return s + "; ssim ended the step " + g + " s after the first failure";
}

}  // namespace ssim::engine
