// ssim status [EXP] [--json] [--watch [SECONDS]]: the state of every entity, refreshed
// from the launcher and the supervisors' files; works with or without a live ssim run.
#include <iostream>
#include <memory>
#include <thread>

#include "apps/ssim/experiment_ref.hpp"
#include "apps/ssim/status_table.hpp"
#include "apps/ssim/verbs.hpp"
#include "apps/ssim/current_state.hpp"

namespace ssim::app {

namespace {
struct StatusOptions {
  std::string exp;
  bool json = false;
  double watch = 0;
};
}  // namespace

Action add_status(CLI::App& app) {
  auto o = std::make_shared<StatusOptions>();
  auto* cmd = app.add_subcommand("status", "Show the state of every entity of an experiment");
  cmd->add_option("EXP", o->exp, "experiment directory or YAML file (default: the last run from here)");
  cmd->add_flag("--json", o->json, "one JSON document on stdout");
  cmd->add_option("--watch", o->watch, "refresh every SECONDS (default 2) until everything ended")
      ->expected(0, 1)
      ->default_str("2");
  return [o, cmd] {
    const std::string path = resolve_experiment(o->exp);
    const bool watch = cmd->count("--watch") > 0;
    const double interval = o->watch > 0 ? o->watch : 2.0;
    while (true) {
      const CurrentState s = current_state(path);
      if (o->json) {
        std::cout << status_json(s.manifest, s.runner).dump(2) << std::endl;
      } else {
        if (watch) std::cout << "\033[H\033[2J";
        std::cout << s.manifest.experiment << "  " << s.manifest.path << "  "
                  << (s.runner ? "(" + s.runner->role + " pid " + std::to_string(s.runner->pid) + ")"
                               : s.manifest.finished > 0 ? "(finished)" : "(no ssim process tracking it)")
                  << "\n";
        print_status_table(std::cout, s.manifest);
        std::cout.flush();
      }
      if (!watch || s.all_ended) break;
      std::this_thread::sleep_for(std::chrono::duration<double>(interval));  // the refresh period
    }
    return 0;
  };
}

}  // namespace ssim::app
