#pragma once
// The verbs, one file each (cmd_NAME.cpp): each adds its subcommand to the CLI and
// returns the function that runs it once the command line is parsed; that function
// returns the exit code. kVerbs is the one list main() reads, in --help's order.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace ssim::app {

using Action = std::function<int()>;
using AddVerb = Action (*)(CLI::App& app);

Action add_validate(CLI::App& app);
Action add_run(CLI::App& app);
Action add_status(CLI::App& app);
Action add_stop(CLI::App& app);
Action add_start(CLI::App& app);
Action add_logs(CLI::App& app);
Action add_database(CLI::App& app);
Action add_doctor(CLI::App& app);
Action add_env(CLI::App& app);
// What followed "--" on the command line of a verb that runs a program (ssim env EXP --
// PROGRAM ARGS), split off before CLI11 parses the rest.
std::vector<std::string>& program_after_dashes();
Action add_report(CLI::App& app);
Action add_metrics(CLI::App& app);
Action add_list(CLI::App& app);
Action add_dashboard(CLI::App& app);

inline constexpr AddVerb kVerbs[] = {add_validate,  add_run,      add_status, add_start,   add_stop,
                                     add_logs,      add_env,      add_report, add_metrics, add_list,
                                     add_dashboard, add_database, add_doctor};

}  // namespace ssim::app
