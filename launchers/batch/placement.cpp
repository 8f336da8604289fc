#include "launchers/batch/placement.hpp"

#include <algorithm>
#include <set>

#include "launchers/batch/allocation.hpp"

namespace ssim::launchers {

namespace {
int nodes_of(const plan::Resources& r) {
  if (r.nodes > 0) return r.nodes;
  if (r.tasks_per_node > 0) return (r.ntasks + r.tasks_per_node - 1) / r.tasks_per_node;
  return 1;
}
}  // namespace

int nodes_needed(const plan::Plan& plan) {
  int n = plan.database && !plan.database->batch ? plan.database->shards : 0;
  int shared = 0;
  for (const auto& s : plan.steps) {
    if (!s.res.hosts.empty() || s.batch) continue;
    if (s.res.exclusive) n += nodes_of(s.res);
    else shared = std::max(shared, nodes_of(s.res));
  }
  return std::max(n, shared);
}

PlacementPlan place(const plan::Plan& plan, const std::vector<std::string>& allocation) {
  PlacementPlan out;
  std::vector<std::string> free_nodes = allocation;
  std::map<std::string, int> load;  // steps per node
  auto take = [&](int n, const std::string& who) {
    if (static_cast<int>(free_nodes.size()) < n) {
      throw PlacementError(who + " needs " + std::to_string(n) + " node(s) of its own, but only " +
                           std::to_string(free_nodes.size()) + " of the allocation's " +
                           std::to_string(allocation.size()) + " (" + join_hosts(allocation) +
                           ") are left; the experiment needs " + std::to_string(nodes_needed(plan)) +
                           " nodes, or set exclusive: false to let steps share nodes");
    }
    std::vector<std::string> got(free_nodes.begin(), free_nodes.begin() + n);
    free_nodes.erase(free_nodes.begin(), free_nodes.begin() + n);
    for (const auto& g : got) load[g]++;
    return got;
  };
  if (plan.database && !plan.database->batch)
    for (int i = 0; i < plan.database->shards; ++i)
      out.database.push_back({take(1, "database shard " + std::to_string(i)), false});

  std::set<std::string> in_allocation(allocation.begin(), allocation.end());
  for (const auto& s : plan.steps) {
    if (s.batch) continue;  // its own batch job, outside the allocation
    Placement p;
    if (!s.res.hosts.empty()) {
      for (const auto& h : s.res.hosts) {
        if (!in_allocation.count(h))
          throw PlacementError(s.name + " is pinned to " + h + ", which is not in the allocation (" +
                               join_hosts(allocation) + ")");
        p.nodes.push_back(h);
        free_nodes.erase(std::remove(free_nodes.begin(), free_nodes.end(), h), free_nodes.end());
        load[h]++;
      }
      p.shared = true;  // pinned steps may meet others there
    } else if (s.res.exclusive) {
      p.nodes = take(nodes_of(s.res), s.name);
    } else {
      // Shared: the least loaded nodes of the whole allocation.
      const int n = nodes_of(s.res);
      if (n > static_cast<int>(allocation.size()))
        throw PlacementError(s.name + " needs " + std::to_string(n) + " nodes; the allocation has " +
                             std::to_string(allocation.size()));
      std::vector<std::string> order = allocation;
      std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) { return load[a] < load[b]; });
      p.nodes.assign(order.begin(), order.begin() + n);
      for (const auto& h : p.nodes) load[h]++;
      p.shared = true;
    }
    out.steps[s.name] = p;
  }
  // Exclusive steps placed before a shared one on the same node must overlap too.
  for (auto& [name, p] : out.steps)
    for (const auto& h : p.nodes)
      if (load[h] > 1) p.shared = true;
  return out;
}

}  // namespace ssim::launchers
