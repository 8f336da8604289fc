#include "launchers/batch/whole_nodes.hpp"

#include <algorithm>

namespace ssim::launchers {

std::map<std::string, std::set<std::string>> waits_for(const plan::Plan& plan) {
  std::map<std::string, std::vector<std::string>> direct;
  for (const auto& s : plan.steps) {
    auto& d = direct[s.name];
    d.insert(d.end(), s.after.begin(), s.after.end());
    d.insert(d.end(), s.after_any.begin(), s.after_any.end());
  }
  std::map<std::string, std::set<std::string>> out;
  // Steps start only after what they wait for, so the plan has no cycles (validated);
  // an iterative walk per step keeps a deep chain from recursing.
  for (const auto& s : plan.steps) {
    auto& seen = out[s.name];
    std::vector<std::string> todo = direct[s.name];
    while (!todo.empty()) {
      const std::string next = todo.back();
      todo.pop_back();
      if (!seen.insert(next).second) continue;
      const auto it = direct.find(next);
      if (it != direct.end()) todo.insert(todo.end(), it->second.begin(), it->second.end());
    }
  }
  return out;
}

WholeNodes::WholeNodes(const plan::Plan& plan, std::vector<std::string> free, bool reuse_first)
    : free_(std::move(free)), reuse_first_(reuse_first) {
  bool any_wait = false;
  for (const auto& s : plan.steps) any_wait = any_wait || !s.after.empty() || !s.after_any.empty();
  if (any_wait) waits_ = waits_for(plan);  // 100,000 members without after: need no closure
}

std::vector<std::string> WholeNodes::take(const std::string& holder, int n) {
  std::vector<std::string> got;
  if (reuse_first_) {
    take_over(holder, n, got);
    take_free(holder, n, got);
  } else {
    take_free(holder, n, got);
    take_over(holder, n, got);
  }
  return got;
}

// Nodes whose every holder `holder` waits for.
void WholeNodes::take_over(const std::string& holder, int n, std::vector<std::string>& got) {
  const auto w = waits_.find(holder);
  if (w == waits_.end() || w->second.empty()) return;
  for (auto& [node, holders] : held_) {
    if (static_cast<int>(got.size()) >= n) return;
    if (std::all_of(holders.begin(), holders.end(), [&](const std::string& h) { return w->second.count(h) > 0; })) {
      got.push_back(node);
      holders.push_back(holder);
    }
  }
}

void WholeNodes::take_free(const std::string& holder, int n, std::vector<std::string>& got) {
  while (static_cast<int>(got.size()) < n && !free_.empty()) {
    got.push_back(free_.front());
    held_.push_back({free_.front(), {holder}});
    free_.erase(free_.begin());
  }
}

}  // namespace ssim::launchers
