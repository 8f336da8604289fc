// ssim: command line entry point. Maps errors to SPEC.md's exit codes.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <new>

#include "apps/ssim/verbs.hpp"
#include "lib/generate/generate.hpp"
#include "lib/spec/error.hpp"
#include "lib/util/errors.hpp"
#include "ssim_version.hpp"

int main(int argc, char** argv) {
  CLI::App app{"ssim: run HPC and ML workflows (a database, models, ensembles) from one YAML file"};
  app.set_version_flag("--version", std::string("ssim ") + SSIM_VERSION);
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, ssim::app::Action>> verbs;
  auto add = [&](ssim::app::Action action) { verbs.emplace_back(app.get_subcommands({}).back(), action); };
  add(ssim::app::add_validate(app));
  add(ssim::app::add_run(app));
  add(ssim::app::add_status(app));
  add(ssim::app::add_stop(app));
  add(ssim::app::add_logs(app));
  add(ssim::app::add_database(app));
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
