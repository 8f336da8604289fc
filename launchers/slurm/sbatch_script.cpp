#include "launchers/slurm/sbatch_script.hpp"

#include "launchers/batch/directive.hpp"

#include <initializer_list>

namespace ssim::launchers::slurm {

namespace {
// sbatch reads #SBATCH lines with its own word splitting: a value with blanks is
// double-quoted there; a newline or a double quote cannot be represented.
std::string directive(const std::string& option, const std::string& value) {
  check_directive_option(option);
  check_directive_value("--" + option, value);
  return "#SBATCH --" + option + (value.empty() ? "" : "=" + directive_word(value)) + "\n";
}
// Whether the user's `options:` say KEY (or one of its spellings) themselves: theirs is
// written as they wrote it and ssim's own line for it is left out.
bool asked(const BatchJob& job, std::initializer_list<const char*> keys) {
  for (const auto& [k, v] : job.settings.options)
    for (const char* key : keys)
      if (k == key) return true;
  return false;
}

// Options that say how much of a node the job takes: with any of them, the job is not
// given whole nodes behind the user's back (one GPU on a shared node stays shared).
constexpr std::initializer_list<const char*> kNodeShare = {
    "exclusive",   "oversubscribe", "share", "ntasks", "n", "ntasks-per-node", "cpus-per-task", "c",           "mem",
    "mem-per-cpu", "mem-per-gpu",   "gres",  "gpus",   "G", "gpus-per-node",   "gpus-per-task", "cpus-per-gpu"};
constexpr std::initializer_list<const char*> kGpuKeys = {"gres", "gpus", "G", "gpus-per-node", "gpus-per-task"};
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
    if (!asked(job, kNodeShare)) s += directive("exclusive", "");
  } else {
    if (!asked(job, {"ntasks", "n"})) s += directive("ntasks", std::to_string(job.res.ntasks));
    if (job.res.tasks_per_node && !asked(job, {"ntasks-per-node"}))
      s += directive("ntasks-per-node", std::to_string(job.res.tasks_per_node));
    if (job.res.cpus_per_task && !asked(job, {"cpus-per-task", "c"}))
      s += directive("cpus-per-task", std::to_string(job.res.cpus_per_task));
    if (job.res.gpus_per_task && !asked(job, kGpuKeys))
      s += directive("gpus-per-task", std::to_string(job.res.gpus_per_task));
  }
  if (!job.after.empty()) {
    std::string ids;
    for (const auto& a : job.after) ids += ":" + a;
    s += directive("dependency", "afterok" + ids);
  }
  if (!asked(job, {"output", "o"})) s += directive("output", job.out);
  if (!asked(job, {"error", "e"})) s += directive("error", job.err);
  for (const auto& [k, v] : job.settings.options) s += directive(k, v.value);
  return s + script_body(job);
}

}  // namespace ssim::launchers::slurm
