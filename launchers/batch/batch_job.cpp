#include "launchers/batch/batch_job.hpp"

#include "launchers/ranks/rank_command.hpp"

#include "lib/launch/setup_script.hpp"
#include "lib/plan/resources.hpp"

#include <cstdlib>

#include "lib/util/shell_quote.hpp"

namespace ssim::launchers {

int job_nodes(const BatchJob& job) {
  if (job.settings.nodes) return *job.settings.nodes;
  if (job.res.nodes > 0) return job.res.nodes;
  if (job.res.tasks_per_node > 0) return (job.res.ntasks + job.res.tasks_per_node - 1) / job.res.tasks_per_node;
  return 1;
}

long time_seconds(const std::string& time) { return time.empty() ? -1 : plan::time_seconds(time); }

std::string script_body(const BatchJob& job) {
  std::string s = "# Written by ssim. Runs in " + job.run_dir + ".\n";
  s += "set -e\n";
  s += "cd " + shell_quote(job.run_dir) + "\n";
  for (const auto& [k, v] : job.env) s += "export " + k + "=" + shell_quote(v) + "\n";
  s += launch::setup_prelude(job.setup);  // what setup: means everywhere
  std::string words;
  for (const auto& w : job.command) {
    const std::string var = job_variable_of(w);
    words += (words.empty() ? "" : " ") + (var.empty() ? shell_quote(w) : "\"$" + var + "\"");
  }
  s += "exec " + words + "\n";
  return s;
}

}  // namespace ssim::launchers
