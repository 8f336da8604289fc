#include "launchers/pbs/pbs_script.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "lib/util/errors.hpp"
#include "lib/util/split.hpp"

#include "launchers/batch/directive.hpp"
#include "launchers/ranks/rank_command.hpp"

namespace ssim::launchers::pbs {
using namespace ssim::launch;

namespace {
std::string directive(const std::string& option, const std::string& value) {
  check_directive_option(option);
  check_directive_value("-" + option, value);
  return "#PBS -" + option + (value.empty() ? "" : " " + directive_word(value)) + "\n";
}

// Job-wide resources PBS keeps as -l next to select; every other one (mem, vmem, ...)
// qsub refuses there ('"-lresource=" cannot be used with "select"'): it goes into the chunk.
bool job_wide(const std::string& resource) {
  for (const char* r : {"walltime", "place", "cput", "pcput", "software", "file"})
    if (resource == r) return true;
  return false;
}

// A stable 8-digit hex hash, to keep shortened job names apart.
std::string short_hash(const std::string& text) {
  uint32_t h = 2166136261u;  // FNV-1a
  for (unsigned char c : text) h = (h ^ c) * 16777619u;
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", h);
  return buf;
}
}  // namespace

std::string pbs_job_name(const std::string& name) {
  if (name.size() <= kMaxJobName) return name;
  return name.substr(0, kMaxJobName - 9) + "-" + short_hash(name);
}

std::string pbs_script(const BatchJob& job) {
  const int nodes = job_nodes(job);
  std::string s = "#!/bin/bash\n";
  s += directive("N", pbs_job_name(job.name));
  if (!job.settings.queue.empty()) s += directive("q", job.settings.queue);
  if (!job.settings.account.empty()) s += directive("A", job.settings.account);
  // The chunk resources the user's options: {l: ...} name: theirs replace ssim's (one
  // ngpus, not two), and a job that says what it takes of a node is not given whole ones.
  std::vector<std::string> user_chunk;
  for (const auto& [k, v] : job.settings.options)
    if (k == "l")
      for (const auto& item : split(v.value, ','))
        if (!job_wide(item.substr(0, item.find('=')))) user_chunk.push_back(item.substr(0, item.find('=')));
  auto user_says = [&](const char* key) {
    return std::find(user_chunk.begin(), user_chunk.end(), key) != user_chunk.end();
  };
  const bool whole_nodes = job.whole_nodes && user_chunk.empty();
  std::string select = "select=" + std::to_string(nodes);
  if (!job.whole_nodes) {
    // One chunk per node: its MPI ranks (lines in PBS_NODEFILE), their CPUs and GPUs.
    const int per_node = tasks_per_node(job.res, nodes);
    if (!user_says("ncpus")) select += ":ncpus=" + std::to_string(per_node * std::max(1, job.res.cpus_per_task));
    if (!user_says("mpiprocs")) select += ":mpiprocs=" + std::to_string(per_node);
    if (job.res.gpus_per_task && !user_says("ngpus"))
      select += ":ngpus=" + std::to_string(per_node * job.res.gpus_per_task);
  } else if (job.node_cpus > 0 && whole_nodes) {
    // Whole hosts: their CPUs and one MPI slot each, so PBS_NODEFILE and exec_host say so.
    select += ":ncpus=" + std::to_string(job.node_cpus) + ":mpiprocs=" + std::to_string(job.node_cpus);
  }
  // options: {l: "mem=4gb,walltime=..."}: chunk resources join the select statement.
  std::vector<std::string> wide;
  std::vector<std::pair<std::string, std::string>> options;  // as written, without l
  for (const auto& [k, v] : job.settings.options) {
    if (k != "l") {
      options.emplace_back(k, v.value);
      continue;
    }
    for (const auto& item : split(v.value, ',')) {
      const std::string key = item.substr(0, item.find('='));
      if (key == "select")
        throw UsageError(
            "options: l: select=... cannot be given: ssim writes the select statement "
            "from the entity's resources (give mem and the like in l: instead)");
      if (job_wide(key))
        wide.push_back(item);
      else if (!item.empty())
        select += ":" + item;
    }
  }
  s += directive("l", select);
  if (const long t = time_seconds(job.settings.time); t >= 0) s += directive("l", "walltime=" + hms(t));
  bool place_given = false;
  for (const auto& w : wide) {
    place_given = place_given || w.rfind("place=", 0) == 0;
    s += directive("l", w);
  }
  if (!place_given) s += directive("l", whole_nodes ? "place=scatter:excl" : "place=scatter");
  if (!job.after.empty()) {
    std::string ids;
    for (const auto& a : job.after) ids += ":" + a;
    s += directive("W", "depend=afterok" + ids);
  }
  bool out_given = false, err_given = false;  // the user's -o/-e replace ssim's
  for (const auto& [k, v] : options) out_given = out_given || k == "o", err_given = err_given || k == "e";
  if (!out_given) s += directive("o", job.out);
  if (!err_given) s += directive("e", job.err);
  // Output written where -o/-e say while the job runs (d: direct), not spooled on the
  // execution host until it ends: ssim logs follows a running job.
  bool keep_given = false;
  for (const auto& [k, v] : options) keep_given = keep_given || k == "k";
  if (!keep_given) s += directive("k", "oed");
  for (const auto& [k, v] : options) s += directive(k, v);
  return s + script_body(job);
}

}  // namespace ssim::launchers::pbs
