// mpirun / mpiexec (Open MPI, MPICH): on the local machine and inside a job, one builder.
#include <cctype>

#include "launchers/ranks/rank_command.hpp"

namespace ssim::launchers {

// The marker cannot come from an experiment file: names are validated, and words hold
// no control characters the script would keep.
static const std::string kJobVariable = "\x1fjob-variable:";

std::string job_variable_word(const std::string& name) { return kJobVariable + name; }

std::string job_variable_of(const std::string& word) {
  if (word.rfind(kJobVariable, 0) != 0) return "";
  const std::string name = word.substr(kJobVariable.size());
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return "";
  return name;
}

std::vector<std::string> mpirun_command(const std::string& exe, const plan::Resources& res, const Placement& placement,
                                        const RankContext& context, plan::Env& env) {
  std::vector<std::string> argv = {exe, "-np", std::to_string(res.ntasks)};
  if (context.is_root) argv.push_back("--allow-run-as-root");
  if (context.oversubscribe) argv.push_back("--oversubscribe");
  // Open MPI binds each launch's ranks to the first cores of its nodes, from core 0 (a
  // core each up to 2 ranks, a socket beyond). Steps that share a node are separate
  // launches, so every one of them would pile onto the same cores while the rest idle:
  // unbound, unless the step has its nodes to itself (exclusive, or a batch job of its
  // own) or the file asks for a binding.
  bool binding_given = false;
  for (const auto& [k, v] : res.launcher_args) binding_given = binding_given || k == "bind-to" || k == "map-by";
  const bool own_job = placement.nodes.empty() && !context.hostfile_variable.empty();
  if (!res.exclusive && !own_job && !binding_given) argv.insert(argv.end(), {"--bind-to", "none"});
  if (!placement.nodes.empty()) {
    if (context.mpirun_nodes) {
      context.mpirun_nodes(argv, placement, context, res, env);
    } else {
      // The placed hosts with their slots; mpirun reaches them through the scheduler's
      // remote start (TM, blaunch) or ssh, as on any cluster.
      const int per_node = tasks_per_node(res, static_cast<int>(placement.nodes.size()));
      std::string hosts;
      for (const auto& h : placement.nodes) hosts += (hosts.empty() ? "" : ",") + h + ":" + std::to_string(per_node);
      argv.insert(argv.end(), {"--host", hosts});
    }
  } else if (!context.hostfile_variable.empty() && res.ntasks > 1) {
    // A job of its own: its hosts, one line per slot, from the file the scheduler wrote.
    argv.insert(argv.end(), {"--hostfile", job_variable_word(context.hostfile_variable)});
  }
  // Open MPI's mpirun takes "--key value", not "--key=value".
  for (const auto& [k, v] : res.launcher_args) {
    argv.push_back("--" + k);
    if (!v.empty()) argv.push_back(v);
  }
  return argv;
}

std::vector<std::string> mpirun_agent_command(const std::vector<std::string>& nodes,
                                              const std::vector<std::string>& program, bool is_root) {
  std::string hosts, names;
  for (const auto& n : nodes) {
    hosts += (hosts.empty() ? "" : ",") + n + ":1";
    names += (names.empty() ? "" : ",") + n;
  }
  std::vector<std::string> argv = {"mpirun", "-np", std::to_string(nodes.size())};
  if (is_root) argv.push_back("--allow-run-as-root");
  argv.insert(argv.end(), {"--host", hosts, "--map-by", "node", "--bind-to", "none",
                           // Open MPI ends every rank when one exits non-zero or is killed:
                           // not for agents, which are independent of each other.
                           "--mca", "orte_abort_on_non_zero_status", "0", "--mca", "orte_enable_recovery", "1"});
  argv.insert(argv.end(), program.begin(), program.end());
  argv.insert(argv.end(), {"--nodes-by-rank", names});
  return argv;
}

}  // namespace ssim::launchers
