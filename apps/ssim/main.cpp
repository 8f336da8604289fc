// ssim: command line entry point. Maps errors to the exit codes of docs/cli.md.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "apps/ssim/verbs.hpp"
#include "launchers/registry.hpp"
#include "lib/session/failure.hpp"
#include "lib/spec/error.hpp"
#include "lib/spec/suggest.hpp"
#include "ssim_version.hpp"

int main(int argc, char** argv) {
  ssim::launchers::register_launchers();  // before the verbs: `run --launcher` checks the names
  CLI::App app{"ssim: run HPC and ML workflows (a database, models, ensembles) from one YAML file"};
  app.set_version_flag("--version",
                       std::string("ssim ") + SSIM_VERSION +
                           (std::string(SSIM_COMMIT).empty() ? "" : std::string(" (commit ") + SSIM_COMMIT + ")"));
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, ssim::app::Action>> verbs;
  for (const auto add : ssim::app::kVerbs) {
    auto action = add(app);
    verbs.emplace_back(app.get_subcommands({}).back(), std::move(action));
  }
  if (argc > 1 && argv[1][0] != '-') {
    // A mistyped verb: say which one was meant, rather than CLI11's "not expected".
    std::vector<std::string> names, shown;
    for (const auto* sub : app.get_subcommands({})) names.push_back(sub->get_name());
    for (const auto& n : names)
      if (n[0] != '_') shown.push_back(n);  // hidden verbs are ssim's own
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      const std::string guess = ssim::spec::closest_match(argv[1], shown);
      std::cerr << "ssim: unknown verb \"" << ssim::spec::printable(argv[1]) << "\""
                << (guess.empty() ? "" : " (did you mean \"" + guess + "\"?)") << "; ssim --help lists them\n";
      return 2;
    }
  }
  // `ssim env ... -- PROGRAM ARGS`: the program's words are its own, never ssim's options.
  if (argc > 2 && std::string(argv[1]) == "env")
    for (int i = 2; i < argc; ++i)
      if (std::string(argv[i]) == "--") {
        ssim::app::program_after_dashes().assign(argv + i + 1, argv + argc);
        argc = i;
        break;
      }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  try {
    for (auto& [cmd, action] : verbs)
      if (cmd->parsed()) return action();
  } catch (...) {
    const auto failure = ssim::session::describe_failure(std::current_exception());
    std::cerr << failure.line() << "\n";
    return failure.exit_code;
  }
  return 2;
}
