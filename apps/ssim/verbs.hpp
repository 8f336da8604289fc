#pragma once
// One file per verb: each adds its subcommand to the CLI and returns the function that
// runs it once the command line is parsed; that function returns the exit code.
#include <CLI/CLI.hpp>
#include <functional>

namespace ssim::app {

using Action = std::function<int()>;

Action add_validate(CLI::App& app);
Action add_run(CLI::App& app);
Action add_status(CLI::App& app);
Action add_stop(CLI::App& app);
Action add_logs(CLI::App& app);
Action add_database(CLI::App& app);
Action add_doctor(CLI::App& app);
Action add_env(CLI::App& app);
Action add_report(CLI::App& app);
Action add_list(CLI::App& app);
Action add_dashboard(CLI::App& app);

}  // namespace ssim::app
