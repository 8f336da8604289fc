#include "launchers/slurm/sbatch_script.hpp"

#include "lib/util/shell_quote.hpp"

namespace ssim::launchers::slurm {

namespace {
// sbatch reads #SBATCH lines with its own word splitting: a value with blanks is
// double-quoted there; a newline or a double quote cannot be represented.
std::string directive(const std::string& option, const std::string& value) {
  if (value.find_first_of("\n\r\"") != std::string::npos)
    throw std::invalid_argument("batch option --" + option + " has a value that cannot go into a batch script");
  if (value.empty()) return "#SBATCH --" + option + "\n";
  const bool blank = value.find_first_of(" \t") != std::string::npos;
  return "#SBATCH --" + option + "=" + (blank ? "\"" + value + "\"" : value) + "\n";
}
}  // namespace

std::string sbatch_script(const BatchJob& job) {
  std::string s = "#!/bin/bash\n";
  s += directive("job-name", job.name);
  if (job.settings.nodes) s += directive("nodes", std::to_string(*job.settings.nodes));
  if (!job.settings.time.empty()) s += directive("time", job.settings.time);
  if (!job.settings.account.empty()) s += directive("account", job.settings.account);
  if (!job.settings.queue.empty()) s += directive("partition", job.settings.queue);
  for (const auto& [k, v] : job.resources) s += directive(k, v);
  s += directive("output", job.out);
  s += directive("error", job.err);
  for (const auto& [k, v] : job.settings.options) s += directive(k, v.value);
  s += "# Written by ssim. Runs in " + job.run_dir + ".\n";
  s += "set -e\n";
  s += "cd " + shell_quote(job.run_dir) + "\n";
  for (const auto& [k, v] : job.env) s += "export " + k + "=" + shell_quote(v) + "\n";
  for (const auto& line : job.setup) s += line + "\n";
  s += "exec " + shell_join(job.command) + "\n";
  return s;
}

}  // namespace ssim::launchers::slurm
