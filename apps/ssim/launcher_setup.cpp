#include "apps/ssim/launcher_setup.hpp"

#include "launchers/command_runner.hpp"
#include "launchers/slurm/slurm_launcher.hpp"
#include "lib/util/errors.hpp"

namespace ssim::app {

using launchers::slurm::Allocation;
using launchers::slurm::SlurmLauncher;

RunLauncher prepare_launcher(const plan::Plan& plan, bool request, int placeholder_nodes) {
  RunLauncher out;
  if (plan.launcher != "slurm") {
    out.launcher = launchers::make_launcher(plan.launcher);
    return out;
  }
  auto slurm = std::make_unique<SlurmLauncher>(launchers::make_process_runner());
  std::optional<Allocation> allocation = launchers::slurm::current_allocation();
  // Entities with batch: (and a database with batch:) are jobs of their own; an
  // allocation is needed only for the rest.
  bool needs_allocation = plan.database && !plan.database->batch;
  for (const auto& s : plan.steps) needs_allocation = needs_allocation || !s.batch;
  if (!needs_allocation && !allocation) {
    slurm->set_allocation(plan, Allocation{"", {}});
    out.launcher = std::move(slurm);
    return out;
  }
  if (!allocation && !plan.allocation && placeholder_nodes > 0) {
    Allocation placeholder{"$SLURM_JOB_ID", {}};
    for (int i = 1; i <= placeholder_nodes; ++i) placeholder.hosts.push_back("node" + std::to_string(i));
    allocation = placeholder;
  }
  if (!allocation && !plan.allocation)
    throw UsageError("launcher slurm needs an allocation: run ssim inside salloc or sbatch, give the experiment "
                     "an allocation: section, or give every entity a batch: section");
  if (!allocation) {
    const int nodes = plan.allocation->nodes.value_or(launchers::slurm::nodes_needed(plan));
    Allocation placeholder{"<allocation>", {}};
    for (int i = 1; i <= nodes; ++i) placeholder.hosts.push_back("node" + std::to_string(i));
    allocation = placeholder;
    if (request) {
      try {
        slurm->set_allocation(plan, *allocation);  // fits before anything is requested
      } catch (const launchers::slurm::PlacementError& e) {
        throw UsageError(std::string("the experiment does not fit its allocation: ") + e.what());
      }
      auto runner = launchers::make_process_runner();
      allocation = launchers::slurm::request_allocation(*runner, plan.name, *plan.allocation, nodes);
      out.owned = true;
    }
  }
  try {
    slurm->set_allocation(plan, *allocation);
  } catch (const launchers::slurm::PlacementError& e) {
    if (out.owned) launchers::slurm::release_allocation(*launchers::make_process_runner(), allocation->job_id);
    throw UsageError(std::string("the experiment does not fit its allocation: ") + e.what());
  }
  out.allocation_job = allocation->job_id;
  out.launcher = std::move(slurm);
  return out;
}

void release(const RunLauncher& l) {
  if (l.owned && !l.allocation_job.empty())
    launchers::slurm::release_allocation(*launchers::make_process_runner(), l.allocation_job);
}

}  // namespace ssim::app
