#include "apps/ssim/launcher_setup.hpp"

#include "launchers/registry.hpp"

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

}  // namespace ssim::app
