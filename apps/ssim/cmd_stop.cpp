// ssim stop [EXP] [ENTITY ...]: stop the named entities, or everything, and leave no
// process of the experiment behind (session::stop), then show where they stand.
#include <unistd.h>

#include <iostream>
#include <memory>

#include "apps/ssim/run_summary.hpp"
#include "apps/ssim/verbs.hpp"
#include "lib/session/experiment_ref.hpp"
#include "lib/session/stop.hpp"

namespace ssim::app {

Action add_stop(CLI::App& app) {
  auto words = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  auto no_save = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("stop", "Stop an experiment's entities (all when none named)");
  cmd->add_option("EXP_AND_ENTITIES", *words, "[EXP] [ENTITY ...]");
  cmd->add_flag("--json", *json, "where the entities stand afterwards, as ssim status --json");
  cmd->add_flag("--no-save", *no_save, "end the database without saving its snapshot (its data is lost)");
  return [words, json, no_save] {
    auto [path, names] = session::split_experiment_and_names(*words);
    const auto m = session::stop(
        path, names, [](const std::string& note) { std::cerr << "ssim: " << note << "\n"; }, !*no_save);
    print_where_they_stand(std::cout, m, *json, ::isatty(STDOUT_FILENO) != 0);
    return 0;
  };
}

}  // namespace ssim::app
