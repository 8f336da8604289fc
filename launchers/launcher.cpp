#include "launchers/launcher.hpp"

#include "lib/util/errors.hpp"

namespace ssim::launchers {

namespace {
[[noreturn]] void no_scheduler(const std::string& launcher) {
  throw UsageError("--batch submits the experiment to a batch scheduler; launcher " + launcher +
                   " has none (choose a scheduler with launcher: or --launcher)");
}
}  // namespace

std::string Launcher::experiment_script(const plan::Plan&, const std::vector<std::string>&) const {
  no_scheduler(name());
}
std::string Launcher::experiment_script_path(const plan::Plan&) const { no_scheduler(name()); }
std::string Launcher::submit_experiment(const plan::Plan&, const std::vector<std::string>&) { no_scheduler(name()); }

}  // namespace ssim::launchers
