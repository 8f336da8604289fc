#pragma once
// The CPUs and GPUs of the nodes ssim may place packed steps on, and who holds which:
// the local machine (one node), or the nodes of an allocation that the database and
// whole-node steps leave free. A step is given room only when all its tasks fit, so a
// freed node is taken by the next step that fits, and nothing is oversubscribed unless
// the pool says its CPUs are unlimited. Pure: no processes, unit-tested.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lib/plan/plan.hpp"

namespace ssim::launch {

struct PoolNode {
  std::string name;
  int cpus = 0;                                  // 0: not counted (oversubscription allowed, or not known)
  std::optional<std::vector<std::string>> gpus;  // device ids; nullopt: not counted
};

// Where a step's tasks go: tasks[i] on nodes[i], and the device ids it holds.
struct Grant {
  std::vector<std::string> nodes;
  std::vector<int> tasks;
  std::vector<std::vector<std::string>> gpus;  // per node, when the pool counts them
  int tasks_per_node() const;                  // the most on one node
  std::vector<std::string> all_gpus() const;
};

// CPUs a step's tasks each take (cpus_per_task, at least 1).
int cpus_per_task(const plan::Resources& res);

class NodePool {
 public:
  explicit NodePool(std::vector<PoolNode> nodes = {});

  bool empty() const { return nodes_.empty(); }
  const std::vector<PoolNode>& nodes() const { return nodes_; }
  // Room for `res` (ntasks, cpus_per_task, gpus_per_task, tasks_per_node), or nullopt
  // while it does not fit what is free. Nodes are filled in order (first fit), so
  // small steps leave whole nodes to big ones; on nodes whose CPUs are not counted the
  // least used comes first.
  std::optional<Grant> take(const std::string& holder, const plan::Resources& res);
  void release(const std::string& holder);
  // Holds, for `holder`, what is free now of the CPUs and devices `res` asks, up to what
  // it asks (first fit): an entity that waits for room keeps later, smaller ones from
  // taking the room it waits for. Released as any holder is.
  void hold_free(const std::string& holder, const plan::Resources& res);
  // CPUs and devices free now on the nodes in service (nodes whose CPUs are not counted
  // count none).
  int free_cpus() const;
  int free_gpus() const;
  const Grant* held_by(const std::string& holder) const;
  std::vector<std::string> holders() const;
  // Why `res` could never fit, even with every node free; "" when it can.
  std::string never_fits(const plan::Resources& res) const;
  // Node `node` is gone (it died, or its agent was lost): nothing more is placed there.
  // What holds room on it keeps it until released. Returns false if it already was.
  bool retire(const std::string& node);
  // Every node is retired (and there is at least one).
  bool all_retired() const;
  // Node `node` is back in service (a drained node resumed). False if it was not retired.
  bool restore(const std::string& node);
  // A node joins the pool (a whole-node step that held it ended). False if it was there.
  bool add(const PoolNode& node);

 private:
  struct Use {
    int cpus = 0;
    std::vector<std::string> free_gpus;
  };
  size_t index_of(const std::string& node) const;
  std::optional<Grant> fit(const plan::Resources& res, const std::vector<Use>& use) const;
  std::vector<PoolNode> nodes_;
  std::vector<Use> use_;
  std::vector<bool> retired_;
  std::map<std::string, Grant> held_;
  std::map<std::string, std::pair<int, int>> held_cpus_;  // each holder's CPUs per task and per node
};

}  // namespace ssim::launch
