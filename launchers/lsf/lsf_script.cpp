#include "launchers/lsf/lsf_script.hpp"

#include <algorithm>
#include <initializer_list>

#include "launchers/batch/directive.hpp"
#include "launchers/ranks/rank_command.hpp"

namespace ssim::launchers::lsf {

namespace {
// Resource strings are quoted as LSF's own examples write them.
std::string directive(const std::string& option, const std::string& value, bool quote = false) {
  check_directive_option(option);
  check_directive_value("-" + option, value);
  const std::string word = quote ? "\"" + value + "\"" : directive_word(value);
  return "#BSUB -" + option + (value.empty() ? "" : " " + word) + "\n";
}
}  // namespace

std::string lsf_script(const BatchJob& job, bool csm) {
  // The user's options replace ssim's lines for the same thing (one -gpu, one -o), and a
  // job whose options say what it takes of a host is not given whole ones (-x).
  auto user_says = [&](std::initializer_list<const char*> keys) {
    for (const auto& [k, v] : job.settings.options)
      for (const char* key : keys)
        if (k == key) return true;
    return false;
  };
  const bool whole_nodes = job.whole_nodes && !user_says({"gpu", "R", "M", "x", "n"});
  const int nodes = job_nodes(job);
  std::string s = "#!/bin/bash\n";
  s += directive("J", job.name);
  if (!job.settings.queue.empty()) s += directive("q", job.settings.queue);
  if (!job.settings.account.empty()) s += directive("P", job.settings.account);
  if (const long t = time_seconds(job.settings.time); t >= 0) {
    const long minutes = (t + 59) / 60;  // -W takes [HH:]MM, not seconds
    s += directive("W",
                   std::to_string(minutes / 60) + ":" + (minutes % 60 < 10 ? "0" : "") + std::to_string(minutes % 60));
  }
  const int per_node = job.whole_nodes ? 1 : tasks_per_node(job.res, nodes);
  if (csm) {
    s += directive("nnodes", std::to_string(nodes));
  } else {
    s += directive("n", std::to_string(nodes * per_node));
    s += directive("R", "span[ptile=" + std::to_string(per_node) + "]", true);
    if (whole_nodes) s += directive("x", "");
  }
  if (job.res.gpus_per_task && !job.whole_nodes && !user_says({"gpu"}))
    s += directive("gpu", "num=" + std::to_string(job.res.gpus_per_task) + "/task");
  if (!job.after.empty()) {
    std::string cond;
    for (const auto& a : job.after) cond += (cond.empty() ? "" : " && ") + std::string("done(") + a + ")";
    s += directive("w", cond);
  }
  if (!user_says({"o", "oo"})) s += directive("o", job.out);
  if (!user_says({"e", "eo"})) s += directive("e", job.err);
  s += directive("cwd", job.run_dir);
  for (const auto& [k, v] : job.settings.options) s += directive(k, v.value);
  return s + script_body(job);
}

}  // namespace ssim::launchers::lsf
