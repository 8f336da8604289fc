#include "launchers/batch/batch_job.hpp"

#include <cstdlib>

#include "lib/util/shell_quote.hpp"

namespace ssim::launchers {

int job_nodes(const BatchJob& job) {
  if (job.settings.nodes) return *job.settings.nodes;
  if (job.res.nodes > 0) return job.res.nodes;
  if (job.res.tasks_per_node > 0) return (job.res.ntasks + job.res.tasks_per_node - 1) / job.res.tasks_per_node;
  return 1;
}

long time_seconds(const std::string& time) {
  if (time.empty()) return -1;
  // Slurm's forms: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS.
  long days = 0;
  std::string rest = time;
  const bool has_days = time.find('-') != std::string::npos;
  if (has_days) {
    days = std::atol(time.substr(0, time.find('-')).c_str());
    rest = time.substr(time.find('-') + 1);
  }
  std::vector<long> parts;
  size_t i = 0;
  while (i <= rest.size()) {
    const size_t j = rest.find(':', i);
    parts.push_back(std::atol(rest.substr(i, j == std::string::npos ? std::string::npos : j - i).c_str()));
    if (j == std::string::npos) break;
    i = j + 1;
  }
  long h = 0, m = 0, s = 0;
  if (has_days) {
    h = parts[0];
    if (parts.size() > 1) m = parts[1];
    if (parts.size() > 2) s = parts[2];
  } else if (parts.size() == 1) {
    m = parts[0];
  } else if (parts.size() == 2) {
    m = parts[0], s = parts[1];
  } else {
    h = parts[0], m = parts[1], s = parts[2];
  }
  return ((days * 24 + h) * 60 + m) * 60 + s;
}

std::string script_body(const BatchJob& job) {
  std::string s = "# Written by ssim. Runs in " + job.run_dir + ".\n";
  s += "set -e\n";
  s += "cd " + shell_quote(job.run_dir) + "\n";
  for (const auto& [k, v] : job.env) s += "export " + k + "=" + shell_quote(v) + "\n";
  for (const auto& line : job.setup) s += line + "\n";
  s += "exec " + shell_join(job.command) + "\n";
  return s;
}

}  // namespace ssim::launchers
