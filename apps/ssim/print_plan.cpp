#include "apps/ssim/print_plan.hpp"

#include "lib/engine/database_argv.hpp"
#include "lib/util/shell_quote.hpp"

namespace ssim::app {

void print_plan(std::ostream& out, const plan::Plan& plan, const launch::Launcher& launcher) {
  out << "experiment " << plan.name << "  (launcher: " << plan.launcher << ")\n"
      << "  path: " << plan.path << "\n";
  if (plan.database) {
    const auto& d = *plan.database;
    out << "orchestrator: " << d.binary << ", " << d.shards << " shard(s) from port " << d.port << ", password "
        << (d.password ? "auto" : "none") << (d.persist ? ", persists" : "") << "\n  run_dir: " << d.run_dir << "\n";
    int index = 0;
    for (const auto& shard : orchestrator::shards_of(d))
      out << "  command" << (d.shards > 1 ? " (" + shard.name + ")" : "") << ": "
          << shell_join(engine::database_argv(plan, launcher, index++, shard)) << "\n";
  }
  for (const auto& s : plan.steps) {
    out << plan::to_string(s.kind) << " " << s.name << "\n"
        << "  run_dir: " << s.run_dir << "\n";
    const bool own_job = s.program->batch && launcher.batch();
    if (s.program->setup.empty() || own_job) {
      out << "  command: " << shell_join(launch::step_argv(launcher, s)) << "\n";
    } else {
      // What bash runs: the setup lines (errexit, pipefail), then the command with its
      // arguments as given ("$@"), never re-split.
      out << "  step script (bash; the first setup line that fails fails the step):\n";
      for (const auto& line : s.program->setup) out << "    " << line << "\n";
      out << "    exec " << shell_join(launcher.command(s)) << "\n";
      if (s.program->exe.find('/') == std::string::npos)
        out << "  program: " << s.program->exe << ", found on the PATH the setup lines leave\n";
    }
    if (const std::string script = own_job ? launcher.batch()->batch_script(s) : ""; !script.empty()) {
      out << "  batch script (" << launcher.batch()->batch_script_path(s) << "):\n";
      std::string line;
      for (char c : script) {
        if (c == '\n') {
          out << "    " << line << "\n";
          line.clear();
        } else {
          line += c;
        }
      }
    }
    if (!s.after.empty()) {
      out << "  after:";
      for (const auto& a : s.after) out << " " << a;
      out << "\n";
    }
    out << "  env:\n";
    for (const auto& [k, v] : plan::launch_env(s, plan::kExperimentIdPlaceholder, 1))
      out << "    " << k << "=" << shell_quote(v) << "\n";
  }
}

}  // namespace ssim::app
