#pragma once
// Whole nodes for whole-node steps (exclusive, nodes:), chosen once for the run: a step
// may take over the nodes of steps it waits for (after:, after_any:, directly or through
// others), which have ended by the time it starts. So train-then-evaluate fits a 2-node
// job; steps that may run at once never share a node.
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/plan/plan.hpp"

namespace ssim::launchers {

// The steps a step waits for, directly or through others (after:, after_any:), found for
// the steps asked about only, from the plan's own lists: a 100,000-member ensemble after
// another is not walked for a whole-node step that waits for nothing.
class Waits {
 public:
  explicit Waits(const plan::Plan& plan) : plan_(plan) {}
  // Empty for a name that is no step (a database shard).
  const std::set<std::string>& of(const std::string& step);

 private:
  const plan::Plan& plan_;
  std::unordered_map<std::string, const plan::Step*> steps_;  // by name, made at the first question
  std::map<std::string, std::set<std::string>> known_;
};

class WholeNodes {
 public:
  // `reuse_first`: a step takes over what it may before it takes nodes no one holds (the
  // fewest nodes: what `ssim run --batch` asks for); else free nodes first (an
  // allocation's nodes are there anyway: each step on its own while they last).
  WholeNodes(const plan::Plan& plan, std::vector<std::string> free, bool reuse_first);
  // `n` nodes for `holder` (a step's name, or a database shard's, which no step waits
  // for). Fewer than `n` when there are not enough.
  std::vector<std::string> take(const std::string& holder, int n);
  const std::vector<std::string>& free() const { return free_; }

 private:
  void take_over(const std::string& holder, int n, std::vector<std::string>& got);
  void take_free(const std::string& holder, int n, std::vector<std::string>& got);
  Waits waits_;
  bool reuse_first_;
  std::vector<std::string> free_;                                       // held by no one, in the allocation's order
  std::vector<std::pair<std::string, std::vector<std::string>>> held_;  // node -> its holders, in order taken
};

}  // namespace ssim::launchers
