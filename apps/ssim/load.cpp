#include "apps/ssim/load.hpp"

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "launchers/registry.hpp"
#include "lib/spec/parse.hpp"

namespace ssim::app {

namespace {
spec::ParseOptions g_parse_options;
}

void add_max_members_option(CLI::App& cmd) {
  cmd.add_option("--max-members", g_parse_options.max_members,
                 "the most ensemble members an experiment may have (default " +
                     std::to_string(spec::kDefaultMaxMembers) + ")")
      ->check(CLI::PositiveNumber);
}

std::vector<std::string> max_members_args() {
  if (g_parse_options.max_members == spec::kDefaultMaxMembers) return {};
  return {"--max-members", std::to_string(g_parse_options.max_members)};
}

namespace {
bool wants_submission(const plan::Plan& plan) {
  if (plan.database && plan.database->batch) return true;
  for (const auto& s : plan.steps)
    if (s.batch) return true;
  return false;
}
}  // namespace

Loaded load(const std::string& file, const std::string& launcher_override) {
  Loaded l;
  l.spec = spec::load_experiment(file, g_parse_options);
  plan::PlanContext context;
  context.cwd = std::filesystem::current_path().string();
  const std::string requested = launcher_override.empty() ? l.spec.launcher : launcher_override;
  context.launcher = launchers::resolve_launcher(requested, [](const char* n) { return std::getenv(n); });
  l.plan = plan::build_plan(l.spec, context);
  if (requested == "auto" && context.launcher == "local" && wants_submission(l.plan)) {
    // batch: means "a job of its own": on a login node, auto is the scheduler installed here.
    const std::string scheduler = launchers::submit_launcher(launchers::program_on_path);
    if (!scheduler.empty()) {
      context.launcher = scheduler;
      l.plan = plan::build_plan(l.spec, context);
    } else {
      std::cerr << "ssim: warning: " << file << ": batch: sections are ignored: launcher auto found no "
                << "scheduler here (sbatch, qsub, bsub), so every entity runs on this machine\n";
    }
  }
  return l;
}

}  // namespace ssim::app
