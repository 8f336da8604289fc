// ssim validate FILE: parse, check and plan the experiment; write nothing.
#include <iostream>
#include <memory>

#include "apps/ssim/cli_options.hpp"
#include "lib/session/load.hpp"
#include "launchers/local/local_devices.hpp"
#include "lib/plan/program_checks.hpp"
#include "apps/ssim/verbs.hpp"

namespace ssim::app {
using namespace ssim::session;

Action add_validate(CLI::App& app) {
  auto file = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("validate", "Check an experiment file; print nothing but errors");
  cmd->add_option("FILE", *file, "experiment YAML file")->required();
  add_max_members_option(*cmd);
  return [file] {
    const Loaded l = load_to_run(*file);
    plan::check_programs(l.spec, l.plan);
    launchers::check_device_variables();
    std::cerr << *file << ": ok (" << l.plan.steps.size() << " entities"
              << (l.plan.database ? ", orchestrator" : "") << ")\n";
    return 0;
  };
}

}  // namespace ssim::app
