#include "lib/session/load.hpp"
#include "lib/util/layout.hpp"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "lib/launch/registry.hpp"
#include "lib/orchestrator/address.hpp"
#include "lib/util/errors.hpp"
#include "lib/spec/parse.hpp"

namespace ssim::session {

namespace {
spec::ParseOptions g_parse_options;
}

spec::ParseOptions& parse_options() {
  if (g_parse_options.launchers.empty()) g_parse_options.launchers = launch::launcher_names();
  return g_parse_options;
}

std::vector<std::string> max_members_args() {
  if (g_parse_options.max_members == spec::kDefaultMaxMembers) return {};
  return {"--max-members", std::to_string(g_parse_options.max_members)};
}

namespace {
bool wants_submission(const plan::Plan& plan) {
  if (plan.database && plan.database->batch) return true;
  for (const auto& s : plan.steps)
    if (s.program->batch) return true;
  return false;
}
}  // namespace

Loaded load(const std::string& file, const std::string& launcher_override) {
  Loaded l;
  l.spec = spec::load_experiment(file, parse_options());
  plan::PlanContext context;
  context.cwd = std::filesystem::current_path().string();
  const std::string requested = launcher_override.empty() ? l.spec.launcher : launcher_override;
  context.launcher = launch::resolve_launcher(requested, [](const char* n) { return std::getenv(n); });
  context.python = entity_python();
  context.python_chosen = std::getenv("SSIM_PYTHON") && *std::getenv("SSIM_PYTHON");
  for (plan::ContainerRuntime r : plan::auto_runtime_order())
    if (!find_on_path(plan::runtime_program(r)).empty()) context.container_runtimes.push_back(r);
  l.plan = plan::build_plan(l.spec, context);
  return l;
}

Loaded load_to_run(const std::string& file, const std::string& launcher_override) {
  Loaded l = load(file, launcher_override);
  const std::string requested = launcher_override.empty() ? l.spec.launcher : launcher_override;
  if (requested == "auto" && plan::runs_here(l.plan) && wants_submission(l.plan)) {
    // batch: means "a job of its own": on a login node, auto is the scheduler installed
    // here (none: the run says batch: is ignored).
    const std::string scheduler = launch::submit_launcher(launch::program_on_path);
    if (!scheduler.empty()) l = load(file, scheduler);
  }
  if (l.plan.database && !l.plan.database->password_file.empty()) {
    // As ssh does with a private key: a password others can read is no secret.
    struct stat st {};
    const std::string& pf = l.plan.database->password_file;
    if (::stat(pf.c_str(), &st) == 0 && (st.st_mode & 077))
      std::cerr << "ssim: warning: " << pf << " (orchestrator.password_file) can be read by other users (mode "
                << std::oct << (st.st_mode & 0777) << std::dec << "); chmod 600 " << pf << "\n";
  }
  return l;
}

void choose_auto_port(Loaded& l) {
  if (!l.plan.database || l.plan.database->external() || !l.spec.orchestrator || l.spec.orchestrator->port != 0) return;
  // Free here when ssim starts the database here; inside an allocation the shard's node
  // decides, and a port taken there is reported by the shard.
  const auto& db = *l.plan.database;
  const std::string address = orchestrator::resolve_bind_address(db.interface, plan::runs_here(l.plan));
  l.plan.database->port = orchestrator::free_port_base(address, db.shards, db.shards > 1);
}

void check_ports(const plan::Plan& plan) {
  if (!plan.database || plan.database->external() || !plan::runs_here(plan)) return;
  const auto& db = *plan.database;
  const std::string address = orchestrator::resolve_bind_address(db.interface, true);
  for (int i = 0; i < db.shards; ++i)
    for (const int port : {db.port + i, db.port + i + 10000}) {
      const std::string problem = orchestrator::port_problem(address, port);
      if (!problem.empty())
        throw EnvironmentError("the database cannot listen: " + problem +
                               (port > db.port + i ? " (its cluster bus port)" : ""));
      if (db.shards == 1) break;
    }
}

}  // namespace ssim::session
