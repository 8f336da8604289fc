#include "launchers/pbs/pbs_script.hpp"

#include <algorithm>

#include "launchers/batch/directive.hpp"
#include "launchers/ranks/rank_command.hpp"

namespace ssim::launchers::pbs {

namespace {
std::string directive(const std::string& option, const std::string& value) {
  check_directive_option(option);
  check_directive_value("-" + option, value);
  return "#PBS -" + option + (value.empty() ? "" : " " + directive_word(value)) + "\n";
}
}  // namespace

std::string pbs_script(const BatchJob& job) {
  const int nodes = job_nodes(job);
  std::string s = "#!/bin/bash\n";
  s += directive("N", job.name);
  if (!job.settings.queue.empty()) s += directive("q", job.settings.queue);
  if (!job.settings.account.empty()) s += directive("A", job.settings.account);
  std::string select = "select=" + std::to_string(nodes);
  if (!job.whole_nodes) {
    // One chunk per node: its MPI ranks (lines in PBS_NODEFILE), their CPUs and GPUs.
    const int per_node = tasks_per_node(job.res, nodes);
    select += ":ncpus=" + std::to_string(per_node * std::max(1, job.res.cpus_per_task)) +
              ":mpiprocs=" + std::to_string(per_node);
    if (job.res.gpus_per_task) select += ":ngpus=" + std::to_string(per_node * job.res.gpus_per_task);
  }
  s += directive("l", select);
  if (const long t = time_seconds(job.settings.time); t >= 0) s += directive("l", "walltime=" + hms(t));
  s += directive("l", job.whole_nodes ? "place=scatter:excl" : "place=scatter");
  if (!job.after.empty()) {
    std::string ids;
    for (const auto& a : job.after) ids += ":" + a;
    s += directive("W", "depend=afterok" + ids);
  }
  s += directive("o", job.out);
  s += directive("e", job.err);
  for (const auto& [k, v] : job.settings.options) s += directive(k, v.value);
  return s + script_body(job);
}

}  // namespace ssim::launchers::pbs
