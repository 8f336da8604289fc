#include "launchers/batch/whole_nodes.hpp"

#include <algorithm>

namespace ssim::launchers {

const std::set<std::string>& Waits::of(const std::string& step) {
  if (const auto it = known_.find(step); it != known_.end()) return it->second;
  if (steps_.empty())
    for (const auto& s : plan_.steps) steps_.emplace(s.name, &s);
  auto& seen = known_[step];
  // Steps start only after what they wait for, so the plan has no cycles (validated); an
  // iterative walk keeps a deep chain from recursing.
  std::vector<const plan::Step*> todo;
  if (const auto it = steps_.find(step); it != steps_.end()) todo.push_back(it->second);
  while (!todo.empty()) {
    const plan::Step* s = todo.back();
    todo.pop_back();
    for (const auto* list : {&s->after, &s->after_any})
      for (const auto& name : *list)
        if (seen.insert(name).second)
          if (const auto it = steps_.find(name); it != steps_.end()) todo.push_back(it->second);
  }
  return seen;
}

WholeNodes::WholeNodes(const plan::Plan& plan, std::vector<std::string> free, bool reuse_first)
    : waits_(plan), reuse_first_(reuse_first), free_(std::move(free)) {}

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
  if (held_.empty()) return;
  const std::set<std::string>& waits = waits_.of(holder);
  if (waits.empty()) return;
  for (auto& [node, holders] : held_) {
    if (static_cast<int>(got.size()) >= n) return;
    if (std::all_of(holders.begin(), holders.end(), [&](const std::string& h) { return waits.count(h) > 0; })) {
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
