#include "lib/engine/database_argv.hpp"

#include "lib/launch/container_command.hpp"
#include "lib/launch/setup_script.hpp"
#include "lib/util/self_exe.hpp"

namespace ssim::engine {

std::vector<std::string> database_argv(const plan::Plan& plan, const launch::Launcher& launcher, int index,
                                       const orchestrator::Shard& shard) {
  const auto& container = plan.database->container;
  const std::vector<std::string> words =
      container ? launch::database_container_words(*container, shard.run_dir) : std::vector<std::string>{};
  return launch::with_setup(
      plan.setup,
      launcher.database_command(index, shard.run_dir, orchestrator::shard_command(self_exe(), plan, shard, words)));
}

}  // namespace ssim::engine
