#include "apps/ssim/load.hpp"

#include <cstdlib>
#include <filesystem>

#include "launchers/registry.hpp"
#include "lib/spec/parse.hpp"

namespace ssim::app {

Loaded load(const std::string& file, const std::string& launcher_override) {
  Loaded l;
  l.spec = spec::load_experiment(file);
  plan::PlanContext context;
  context.cwd = std::filesystem::current_path().string();
  const std::string requested = launcher_override.empty() ? l.spec.launcher : launcher_override;
  context.launcher = launchers::resolve_launcher(requested, [](const char* n) { return std::getenv(n); });
  l.plan = plan::build_plan(l.spec, context);
  return l;
}

}  // namespace ssim::app
