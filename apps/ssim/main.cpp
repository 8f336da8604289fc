// ssim: command line entry point. Maps errors to SPEC.md's exit codes.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <new>

#include "apps/ssim/verbs.hpp"
#include "lib/generate/generate.hpp"
#include "lib/spec/error.hpp"
#include "lib/spec/suggest.hpp"
#include "lib/util/errors.hpp"
#include "ssim_version.hpp"

int main(int argc, char** argv) {
  CLI::App app{"ssim: run HPC and ML workflows (a database, models, ensembles) from one YAML file"};
  app.set_version_flag("--version", std::string("ssim ") + SSIM_VERSION +
                                        (std::string(SSIM_COMMIT).empty() ? "" : std::string(" (commit ") + SSIM_COMMIT + ")"));
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, ssim::app::Action>> verbs;
  auto add = [&](ssim::app::Action action) { verbs.emplace_back(app.get_subcommands({}).back(), action); };
  add(ssim::app::add_validate(app));
  add(ssim::app::add_run(app));
  add(ssim::app::add_status(app));
  add(ssim::app::add_stop(app));
  add(ssim::app::add_logs(app));
  add(ssim::app::add_env(app));
  add(ssim::app::add_report(app));
  add(ssim::app::add_list(app));
  add(ssim::app::add_dashboard(app));
  add(ssim::app::add_database(app));
  add(ssim::app::add_doctor(app));
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
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  try {
    for (auto& [cmd, action] : verbs)
      if (cmd->parsed()) return action();
  } catch (const ssim::spec::SpecError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const ssim::generate::GenerateError& e) {
    std::cerr << "ssim: " << e.what() << "\n";
    return 2;
  } catch (const ssim::UsageError& e) {
    std::cerr << "ssim: " << e.what() << "\n";
    return 2;
  } catch (const ssim::EnvironmentError& e) {
    std::cerr << "ssim: " << ssim::spec::printable(e.what(), 4000, true) << "\n";
    return 3;
  } catch (const std::filesystem::filesystem_error& e) {
    // The file system refused something (full, read-only, permissions): the environment.
    std::cerr << "ssim: " << ssim::spec::printable(e.what(), 2000) << "\n";
    return 3;
  } catch (const std::bad_alloc&) {
    std::cerr << "ssim: out of memory\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "ssim: internal error: " << ssim::spec::printable(e.what(), 2000) << "\n";
    return 3;
  }
  return 2;
}
