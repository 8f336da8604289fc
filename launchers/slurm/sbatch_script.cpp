#include "launchers/slurm/sbatch_script.hpp"

#include "launchers/batch/directive.hpp"

namespace ssim::launchers::slurm {

namespace {
// sbatch reads #SBATCH lines with its own word splitting: a value with blanks is
// double-quoted there; a newline or a double quote cannot be represented.
std::string directive(const std::string& option, const std::string& value) {
  check_directive_option(option);
  check_directive_value("--" + option, value);
  return "#SBATCH --" + option + (value.empty() ? "" : "=" + directive_word(value)) + "\n";
}
}  // namespace

std::string sbatch_script(const BatchJob& job) {
  std::string s = "#!/bin/bash\n";
  s += directive("job-name", job.name);
  // Nodes only when asked for (or whole nodes): otherwise Slurm spreads the tasks.
  if (job.settings.nodes || job.res.nodes || job.whole_nodes) s += directive("nodes", std::to_string(job_nodes(job)));
  if (!job.settings.time.empty()) s += directive("time", job.settings.time);
  if (!job.settings.account.empty()) s += directive("account", job.settings.account);
  if (!job.settings.queue.empty()) s += directive("partition", job.settings.queue);
  if (job.whole_nodes) {
    s += directive("exclusive", "");
  } else {
    s += directive("ntasks", std::to_string(job.res.ntasks));
    if (job.res.tasks_per_node) s += directive("ntasks-per-node", std::to_string(job.res.tasks_per_node));
    if (job.res.cpus_per_task) s += directive("cpus-per-task", std::to_string(job.res.cpus_per_task));
    if (job.res.gpus_per_task) s += directive("gpus-per-task", std::to_string(job.res.gpus_per_task));
  }
  if (!job.after.empty()) {
    std::string ids;
    for (const auto& a : job.after) ids += ":" + a;
    s += directive("dependency", "afterok" + ids);
  }
  s += directive("output", job.out);
  s += directive("error", job.err);
  for (const auto& [k, v] : job.settings.options) s += directive(k, v.value);
  return s + script_body(job);
}

}  // namespace ssim::launchers::slurm
