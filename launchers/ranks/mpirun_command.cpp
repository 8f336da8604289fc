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

}  // namespace ssim::launchers
