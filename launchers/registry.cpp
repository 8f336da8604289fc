#include "launchers/registry.hpp"

#include "lib/util/layout.hpp"

#include <unistd.h>

#include <cstdlib>

#include "launchers/batch/batch_launcher.hpp"
#include "launchers/local/local_launcher.hpp"
#include "launchers/lsf/lsf_scheduler.hpp"
#include "launchers/pbs/pbs_scheduler.hpp"
#include "launchers/slurm/slurm_scheduler.hpp"
#include "lib/util/errors.hpp"

namespace ssim::launchers {
using namespace ssim::launch;

namespace {
template <typename S, typename... Args>
std::unique_ptr<Launcher> batch(Args... args) {
  auto launcher = std::make_unique<BatchLauncher>(std::make_unique<S>(args...), make_process_runner());
  launcher->set_queries_in_background(true);  // a slow scheduler never holds up launching
  return launcher;
}
}  // namespace

const std::vector<LauncherInfo>& launcher_registry() {
  static const std::vector<LauncherInfo> registry = {
      {"local", "", "", [] { return std::make_unique<LocalLauncher>(); }},
      {"slurm", "SLURM_JOB_ID", "sbatch", [] { return batch<slurm::SlurmScheduler>(); }},
      {"pbs", "PBS_JOBID", "qsub", [] { return batch<pbs::PbsScheduler>(); }},
      {"lsf", "LSB_JOBID", "bsub", [] { return batch<lsf::LsfScheduler>(program_on_path("jsrun")); }},
  };
  return registry;
}

std::vector<std::string> launcher_names() {
  std::vector<std::string> names = {"auto"};
  for (const auto& l : launcher_registry()) names.push_back(l.name);
  return names;
}

std::unique_ptr<Launcher> make_launcher(const std::string& name) {
  for (const auto& l : launcher_registry())
    if (l.name == name) return l.make();
  throw EnvironmentError("no launcher named " + name + " in this version of ssim");
}

std::string resolve_launcher(const std::string& requested, const std::function<const char*(const char*)>& getenv) {
  if (requested != "auto") return requested;
  for (const auto& l : launcher_registry())
    if (!l.job_variable.empty()) {
      const char* v = getenv(l.job_variable.c_str());
      if (v && *v) return l.name;
    }
  return "local";
}

std::string submit_launcher(const std::function<bool(const std::string&)>& on_path) {
  std::vector<std::string> found;
  for (const auto& l : launcher_registry())
    if (!l.submit_program.empty() && on_path(l.submit_program)) found.push_back(l.name + " (" + l.submit_program + ")");
  if (found.size() > 1) {
    std::string list;
    for (const auto& f : found) list += (list.empty() ? "" : ", ") + f;
    throw UsageError("launcher auto: several schedulers can take jobs here: " + list +
                     "; say which with experiment.launcher or --launcher");
  }
  return found.empty() ? "" : found[0].substr(0, found[0].find(' '));
}

bool program_on_path(const std::string& program) { return !find_on_path(program).empty(); }

}  // namespace ssim::launchers
