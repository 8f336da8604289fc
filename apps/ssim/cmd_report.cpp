// ssim report [EXP] [-o FILE]: one self-contained HTML file about the experiment
// (lib/report), finished or still running, to copy off a login node and open anywhere.
#include <iostream>
#include <memory>

#include "apps/ssim/verbs.hpp"
#include "lib/session/experiment_ref.hpp"
#include "lib/session/report_input.hpp"

namespace ssim::app {
using namespace ssim::session;

namespace {
struct ReportOptions {
  std::string exp;
  std::string output;
};
}  // namespace

Action add_report(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  auto* cmd = app.add_subcommand("report", "Write a self-contained HTML report of an experiment");
  cmd->add_option("EXP", o->exp, "experiment directory or YAML file (default: the last run here)");
  cmd->add_option("-o,--output", o->output, "the HTML file to write (default EXP/report.html; - for stdout)");
  return [o] {
    const std::string path = resolve_experiment(o->exp);
    if (o->output == "-") {
      std::cout << experiment_report(path);
      return 0;
    }
    const WrittenReport written = write_report(path, o->output);
    std::cout << written.file << " (" << (written.bytes + 1023) / 1024 << " KiB)\n";
    return 0;
  };
}

}  // namespace ssim::app
