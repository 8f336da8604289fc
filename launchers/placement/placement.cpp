#include "launchers/placement/placement.hpp"

#include "launchers/batch/whole_nodes.hpp"

#include <algorithm>
#include <set>

namespace ssim::launchers {
using namespace ssim::launch;

namespace {
int nodes_of(const plan::Resources& r) {
  if (r.nodes > 0) return r.nodes;
  if (r.tasks_per_node > 0) return (r.ntasks + r.tasks_per_node - 1) / r.tasks_per_node;
  return 1;
}
}  // namespace

Placement placement_of(const Grant& grant) { return Placement{grant.nodes, false, true, grant.tasks_per_node()}; }

bool is_packed(const plan::Step& s) {
  return !s.program->batch && s.program->res.hosts.empty() && !s.program->res.exclusive;
}

// The whole nodes the database and the whole-node steps take, reused along after: chains.
int whole_nodes_needed(const plan::Plan& plan) {
  int total = plan.database && !plan.database->batch ? plan.database->shards : 0;
  for (const auto& s : plan.steps)
    if (s.program->res.hosts.empty() && !s.program->batch && s.program->res.exclusive)
      total += nodes_of(s.program->res);
  std::vector<std::string> virtual_nodes;
  for (int i = 0; i < total; ++i) virtual_nodes.push_back(std::to_string(i));
  WholeNodes nodes(plan, virtual_nodes, /*reuse_first=*/true);
  for (int i = 0; plan.database && !plan.database->batch && i < plan.database->shards; ++i)
    nodes.take("database shard " + std::to_string(i), 1);
  for (const auto& s : plan.steps)
    if (s.program->res.hosts.empty() && !s.program->batch && s.program->res.exclusive)
      nodes.take(s.name, nodes_of(s.program->res));
  return total - static_cast<int>(nodes.free().size());
}

int nodes_needed(const plan::Plan& plan, int cpus_per_node) {
  int n = whole_nodes_needed(plan);
  int widest = 0;
  std::vector<int> cpus;  // each packed step's, largest first
  for (const auto& s : plan.steps) {
    if (!s.program->res.hosts.empty() || s.program->batch || s.program->res.exclusive)
      continue;  // whole-node steps are counted above
    widest = std::max(widest, nodes_of(s.program->res));
    cpus.push_back(std::max(1, s.program->res.ntasks) * cpus_per_task(s.program->res) + s.program->res.node_cpus);
  }
  if (cpus.empty()) return n;
  if (cpus_per_node <= 0) return n + widest;
  std::sort(cpus.rbegin(), cpus.rend());
  if (plan.max_running > 0 && static_cast<int>(cpus.size()) > plan.max_running) cpus.resize(plan.max_running);
  long total = 0;
  for (const int c : cpus) total += c;
  return n + std::max(widest, static_cast<int>((total + cpus_per_node - 1) / cpus_per_node));
}

namespace {
PlacementPlan place_with(const plan::Plan& plan, const Allocation& allocation, bool reuse_first) {
  const auto& hosts = allocation.hosts;
  PlacementPlan out;
  WholeNodes whole(plan, hosts, reuse_first);
  auto take = [&](int n, const std::string& who) {
    const size_t free_before = whole.free().size();
    std::vector<std::string> got = whole.take(who, n);
    if (static_cast<int>(got.size()) < n) {
      throw PlacementError(who + " needs " + std::to_string(n) + " node(s) of its own, but only " +
                           std::to_string(free_before) + " of the allocation's " + std::to_string(hosts.size()) + " (" +
                           join_hosts(hosts) + ") are left; the experiment needs " +
                           std::to_string(nodes_needed(plan)) +
                           " nodes, or leave out exclusive: true and nodes: to pack steps by CPUs");
    }
    return got;
  };
  if (plan.database && !plan.database->batch)
    for (int i = 0; i < plan.database->shards; ++i)
      out.database.push_back({take(1, "database shard " + std::to_string(i)), false});

  const std::set<std::string> in_allocation(hosts.begin(), hosts.end());
  for (const auto& s : plan.steps) {
    if (s.program->batch) continue;  // its own batch job, outside the allocation
    if (!s.program->res.hosts.empty()) {
      Placement p;
      for (const auto& h : s.program->res.hosts) {
        if (!in_allocation.count(h))
          throw PlacementError(s.name + " is pinned to " + h + ", which is not in the allocation (" +
                               join_hosts(hosts) + ")");
        p.nodes.push_back(h);
      }
      p.shared = true;  // pinned steps may meet others there
      out.steps[s.name] = p;
    } else if (s.program->res.exclusive) {
      out.steps[s.name] = Placement{take(nodes_of(s.program->res), s.name), false};
    }
  }
  // A node someone is pinned to and that also holds a whole-node step: both overlap.
  for (auto& [name, p] : out.steps)
    for (const auto& [other, q] : out.steps)
      if (other != name && (p.shared || q.shared))
        for (const auto& h : p.nodes)
          if (std::find(q.nodes.begin(), q.nodes.end(), h) != q.nodes.end()) p.shared = true;

  const std::vector<std::string>& free_nodes = whole.free();
  for (const auto& h : free_nodes) {
    const auto slots = allocation.slots.find(h);
    out.pool.push_back({h, slots == allocation.slots.end() ? 0 : slots->second, std::nullopt});
  }
  const NodePool pool(out.pool);
  for (const auto& s : plan.steps) {
    if (!is_packed(s)) continue;
    if (const std::string why = pool.never_fits(s.program->res); !why.empty())
      throw PlacementError(s.name + ": " + why + " left by the database and whole-node steps (" +
                           (free_nodes.empty() ? std::string("none") : join_hosts(free_nodes)) +
                           "); the experiment needs " + std::to_string(nodes_needed(plan)) + " nodes or more");
  }
  return out;
}
}  // namespace

PlacementPlan place(const plan::Plan& plan, const Allocation& allocation) {
  // Each whole-node step on nodes of its own while the allocation has them; where that
  // leaves too few, steps take over the nodes of those they wait for first.
  try {
    return place_with(plan, allocation, false);
  } catch (const PlacementError&) {
    return place_with(plan, allocation, true);
  }
}

}  // namespace ssim::launchers
