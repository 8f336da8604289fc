// ssim start [EXP] ENTITY...: start held entities, rerun ended ones, or add entities put
// in the file since, in the run that tracks the experiment (session::start), then show
// where they stand.
#include <filesystem>
#include <unistd.h>

#include <iostream>
#include <memory>

#include "apps/ssim/run_summary.hpp"
#include "apps/ssim/verbs.hpp"
#include "lib/session/experiment_ref.hpp"
#include "lib/session/start.hpp"

namespace ssim::app {

Action add_start(CLI::App& app) {
  auto words = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("start", "Start entities in a running experiment (ssim run --open or --only)");
  cmd->add_option("EXP_AND_ENTITIES", *words, "[EXP] ENTITY ...")->required();
  cmd->add_flag("--json", *json, "where the entities stand afterwards, as ssim status --json");
  return [words, json] {
    auto [path, names] = session::split_experiment_and_names(*words);
    const auto m = session::start(path, names);
    print_where_they_stand(std::cout, m, *json, ::isatty(STDOUT_FILENO) != 0);
    return 0;
  };
}

}  // namespace ssim::app
