#include "apps/ssim/launcher_setup.hpp"

#include "launchers/registry.hpp"
#include "lib/util/errors.hpp"
#include "lib/util/layout.hpp"

#include <cstdlib>

namespace ssim::app {

RunLauncher prepare_launcher(const plan::Plan& plan, bool request, int placeholder_nodes) {
  RunLauncher out;
  out.launcher = launchers::make_launcher(plan.launcher);
  out.launcher->prepare(plan, launchers::PrepareOptions{request, placeholder_nodes});
  out.allocation_job = out.launcher->allocation_id();
  out.owned = out.launcher->allocation_owned();
  return out;
}

void release(const RunLauncher& l) {
  if (l.owned && !l.allocation_job.empty()) l.launcher->release_allocation(l.allocation_job);
}

void check_batch_scripts(const plan::Plan& plan, const launchers::Launcher& launcher) {
  if (!launcher.is_scheduler()) return;
  for (const auto& s : plan.steps)
    if (s.batch) (void)launcher.batch_script(s);
}

void check_environment(const plan::Plan& plan, const launchers::Launcher& launcher) {
  if (find_supervisor().empty()) {
    std::string looked;
    for (const auto& c : supervisor_candidates()) looked += (looked.empty() ? "" : ", ") + c;
    throw EnvironmentError("ssim-supervise (it runs every entity) is missing: looked for " + looked +
                           "; reinstall ssim or set SSIM_SUPERVISE");
  }
  if (launcher.name() != "local") return;  // inside a job, setup lines may bring MPI in
  for (const auto& step : plan.steps) {
    const auto argv = launcher.command(step);
    if (argv.empty() || argv[0] == step.exe) continue;  // the entity's own program: its own failure
    const std::string program = argv[0];
    if (program.find('/') == std::string::npos && !launchers::program_on_path(program)) {
      const char* path = std::getenv("PATH");
      throw EnvironmentError(step.name + " needs " + program + ", which is not on the PATH (" + (path ? path : "") +
                             "); install MPI (Debian: openmpi-bin) or choose run.mpi: none");
    }
  }
}

}  // namespace ssim::app
