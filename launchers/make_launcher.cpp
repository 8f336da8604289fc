#include "launchers/launcher.hpp"
#include "launchers/local/local_launcher.hpp"
#include "launchers/slurm/slurm_launcher.hpp"
#include "lib/util/errors.hpp"

namespace ssim::launchers {

std::unique_ptr<Launcher> make_launcher(const std::string& name) {
  if (name == "local") return std::make_unique<LocalLauncher>();
  if (name == "slurm") return std::make_unique<slurm::SlurmLauncher>(make_process_runner());
  throw EnvironmentError("the " + name +
                         " launcher is not available in this version of ssim yet; "
                         "use launcher: local or slurm (or --launcher local)");
}

}  // namespace ssim::launchers
