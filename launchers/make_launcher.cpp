#include "launchers/launcher.hpp"
#include "launchers/local/local_launcher.hpp"
#include "lib/util/errors.hpp"

namespace ssim::launchers {

std::unique_ptr<Launcher> make_launcher(const std::string& name) {
  if (name == "local") return std::make_unique<LocalLauncher>();
  throw EnvironmentError("the " + name +
                         " launcher is not available in this version of ssim yet; "
                         "use launcher: local (or --launcher local)");
}

}  // namespace ssim::launchers
