#include "launchers/registry.hpp"

#include "launchers/batch/batch_launcher.hpp"
#include "launchers/local/local_launcher.hpp"
#include "launchers/lsf/lsf_scheduler.hpp"
#include "launchers/pbs/pbs_scheduler.hpp"
#include "launchers/slurm/slurm_scheduler.hpp"

namespace ssim::launchers {
using namespace ssim::launch;

namespace {
template <typename S, typename... Args>
std::unique_ptr<Launcher> batch(Args... args) {
  return std::make_unique<BatchLauncher>(std::make_unique<S>(args...), make_process_runner());
}
}  // namespace

void register_launchers() {
  add_launcher({"local", "", "", [] { return std::make_unique<LocalLauncher>(); }});
  add_launcher({"slurm", "SLURM_JOB_ID", "sbatch", [] { return batch<slurm::SlurmScheduler>(); }});
  add_launcher({"pbs", "PBS_JOBID", "qsub", [] { return batch<pbs::PbsScheduler>(); }});
  add_launcher({"lsf", "LSB_JOBID", "bsub", [] { return batch<lsf::LsfScheduler>(program_on_path("jsrun")); }});
}

}  // namespace ssim::launchers
