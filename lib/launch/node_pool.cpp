#include "lib/launch/node_pool.hpp"

#include <algorithm>
#include <climits>
#include <numeric>

namespace ssim::launch {

int Grant::tasks_per_node() const { return tasks.empty() ? 0 : *std::max_element(tasks.begin(), tasks.end()); }

std::vector<std::string> Grant::all_gpus() const {
  std::vector<std::string> out;
  for (const auto& ids : gpus) out.insert(out.end(), ids.begin(), ids.end());
  return out;
}

int cpus_per_task(const plan::Resources& res) { return std::max(1, res.cpus_per_task); }

NodePool::NodePool(std::vector<PoolNode> nodes) : nodes_(std::move(nodes)) {
  for (const auto& n : nodes_) use_.push_back({0, n.gpus.value_or(std::vector<std::string>{})});
  retired_.assign(nodes_.size(), false);
}

bool NodePool::retire(const std::string& node) {
  const size_t i = index_of(node);
  if (i == nodes_.size() || retired_[i]) return false;
  retired_[i] = true;
  return true;
}

bool NodePool::add(const PoolNode& node) {
  if (index_of(node.name) != nodes_.size()) return false;
  nodes_.push_back(node);
  use_.push_back({0, node.gpus.value_or(std::vector<std::string>{})});
  retired_.push_back(false);
  return true;
}

bool NodePool::restore(const std::string& node) {
  const size_t i = index_of(node);
  if (i == nodes_.size() || !retired_[i]) return false;
  retired_[i] = false;
  return true;
}

namespace {
// Tasks per node, most first: `tasks_per_node` when given, else spread evenly over
// `nodes` (given, or tried from 1 up by the caller).
std::vector<int> spread(int ntasks, int nodes) {
  std::vector<int> wants;
  for (int k = 0; k < nodes; ++k) wants.push_back(ntasks / nodes + (k < ntasks % nodes ? 1 : 0));
  return wants;
}
std::vector<int> by_tasks_per_node(int ntasks, int per) {
  std::vector<int> wants(ntasks / per, per);
  if (ntasks % per) wants.push_back(ntasks % per);
  return wants;
}
}  // namespace

std::optional<Grant> NodePool::fit(const plan::Resources& res, const std::vector<Use>& use) const {
  const int c = cpus_per_task(res);
  const int g = res.gpus_per_task;
  const int n_nodes = static_cast<int>(nodes_.size());
  std::vector<int> order(n_nodes);
  std::iota(order.begin(), order.end(), 0);
  const bool uncounted = std::any_of(nodes_.begin(), nodes_.end(), [](const PoolNode& n) { return n.cpus == 0; });
  if (uncounted)  // nothing to pack against: spread over the least used
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return use[a].cpus < use[b].cpus; });
  auto room = [&](int i) {
    if (retired_[i]) return -1;
    int r = nodes_[i].cpus ? (nodes_[i].cpus - use[i].cpus - res.node_cpus) / c : INT_MAX;
    if (g > 0 && nodes_[i].gpus) r = std::min(r, static_cast<int>(use[i].free_gpus.size()) / g);
    return r;
  };
  auto assign = [&](const std::vector<int>& wants) -> std::optional<Grant> {
    Grant grant;
    std::vector<bool> used(n_nodes, false);
    for (const int want : wants) {
      if (want == 0) continue;
      bool placed = false;
      for (const int i : order) {
        if (used[i] || room(i) < want) continue;
        used[i] = placed = true;
        grant.nodes.push_back(nodes_[i].name);
        grant.tasks.push_back(want);
        grant.gpus.emplace_back();
        if (g > 0 && nodes_[i].gpus)
          grant.gpus.back().assign(use[i].free_gpus.begin(), use[i].free_gpus.begin() + want * g);
        break;
      }
      if (!placed) return std::nullopt;
    }
    return grant;
  };
  const int t = std::max(1, res.ntasks);
  if (res.tasks_per_node > 0) return assign(by_tasks_per_node(t, res.tasks_per_node));
  if (res.nodes > 0) return res.nodes > n_nodes ? std::nullopt : assign(spread(t, res.nodes));
  for (int n = 1; n <= std::min(n_nodes, t); ++n)
    if (auto grant = assign(spread(t, n))) return grant;
  return std::nullopt;
}

size_t NodePool::index_of(const std::string& node) const {
  return std::find_if(nodes_.begin(), nodes_.end(), [&](const PoolNode& n) { return n.name == node; }) - nodes_.begin();
}

std::optional<Grant> NodePool::take(const std::string& holder, const plan::Resources& res) {
  auto grant = fit(res, use_);
  if (!grant) return std::nullopt;
  const int c = cpus_per_task(res);
  for (size_t k = 0; k < grant->nodes.size(); ++k) {
    const size_t i = index_of(grant->nodes[k]);
    use_[i].cpus += grant->tasks[k] * c + res.node_cpus;
    auto& free = use_[i].free_gpus;
    for (const auto& id : grant->gpus[k]) free.erase(std::remove(free.begin(), free.end(), id), free.end());
  }
  held_[holder] = *grant;
  held_cpus_[holder] = {c, res.node_cpus};
  return grant;
}

void NodePool::release(const std::string& holder) {
  const auto it = held_.find(holder);
  if (it == held_.end()) return;
  const auto [c, per_node] = held_cpus_[holder];
  const Grant& grant = it->second;
  for (size_t k = 0; k < grant.nodes.size(); ++k) {
    const size_t i = index_of(grant.nodes[k]);
    use_[i].cpus -= grant.tasks[k] * c + per_node;
    use_[i].free_gpus.insert(use_[i].free_gpus.end(), grant.gpus[k].begin(), grant.gpus[k].end());
  }
  held_.erase(it);
  held_cpus_.erase(holder);
}

void NodePool::hold_free(const std::string& holder, const plan::Resources& res) {
  const int tasks = std::max(1, res.ntasks);
  int cpus = tasks * cpus_per_task(res) + res.node_cpus;
  int gpus = tasks * res.gpus_per_task;
  Grant grant;
  for (size_t i = 0; i < nodes_.size() && (cpus > 0 || gpus > 0); ++i) {
    if (retired_[i] || nodes_[i].cpus == 0) continue;
    const int c = std::min(cpus, std::max(0, nodes_[i].cpus - use_[i].cpus));
    const int g = std::min(gpus, static_cast<int>(use_[i].free_gpus.size()));
    if (c == 0 && g == 0) continue;
    grant.nodes.push_back(nodes_[i].name);
    grant.tasks.push_back(c);  // CPUs, one a "task" (held_cpus_ below)
    grant.gpus.emplace_back(use_[i].free_gpus.begin(), use_[i].free_gpus.begin() + g);
    use_[i].cpus += c;
    use_[i].free_gpus.erase(use_[i].free_gpus.begin(), use_[i].free_gpus.begin() + g);
    cpus -= c, gpus -= g;
  }
  if (grant.nodes.empty()) return;
  held_[holder] = std::move(grant);
  held_cpus_[holder] = {1, 0};
}

int NodePool::free_cpus() const {
  int free = 0;
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (!retired_[i] && nodes_[i].cpus > 0) free += std::max(0, nodes_[i].cpus - use_[i].cpus);
  return free;
}

int NodePool::free_gpus() const {
  int free = 0;
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (!retired_[i]) free += static_cast<int>(use_[i].free_gpus.size());
  return free;
}

const Grant* NodePool::held_by(const std::string& holder) const {
  const auto it = held_.find(holder);
  return it == held_.end() ? nullptr : &it->second;
}

std::vector<std::string> NodePool::holders() const {
  std::vector<std::string> out;
  for (const auto& [h, g] : held_) out.push_back(h);
  return out;
}

bool NodePool::all_retired() const {
  return !nodes_.empty() && std::find(retired_.begin(), retired_.end(), false) == retired_.end();
}

std::string NodePool::never_fits(const plan::Resources& res) const {
  std::vector<Use> empty;
  for (const auto& n : nodes_) empty.push_back({0, n.gpus.value_or(std::vector<std::string>{})});
  if (nodes_.empty()) return "there are no nodes to share";
  if (fit(res, empty)) return "";
  if (all_retired()) return "every node of the pool was lost";
  int cpus = 0;
  size_t gpus = 0;
  for (const auto& n : nodes_) cpus = std::max(cpus, n.cpus), gpus = std::max(gpus, n.gpus ? n.gpus->size() : 0);
  std::string why = std::to_string(res.ntasks) + " task(s) of " + std::to_string(cpus_per_task(res)) + " CPU(s)";
  if (res.gpus_per_task) why += " and " + std::to_string(res.gpus_per_task) + " GPU(s)";
  if (res.tasks_per_node) why += ", " + std::to_string(res.tasks_per_node) + " per node";
  if (res.nodes) why += " on " + std::to_string(res.nodes) + " node(s)";
  if (res.node_cpus) why += " (+" + std::to_string(res.node_cpus) + " per node for its colocated database)";
  why += " do not fit " + std::to_string(nodes_.size()) + " node(s) of " + std::to_string(cpus) + " CPUs";
  if (res.gpus_per_task) why += " and " + std::to_string(gpus) + " GPUs";
  return why;
}

}  // namespace ssim::launch
