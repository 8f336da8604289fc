// ssim env [EXP] [ENTITY] [--json]: the variables an entity of the experiment sees
// (SSDB, SSDB_PASSWORD; with ENTITY its SSKEYOUT and SSKEYIN), as `export` lines for
// a shell or a notebook: eval "$(ssim env runs/streaming trainer)".
// ssim env [--smartredis] [EXP] [ENTITY] -- PROGRAM ARGS: runs PROGRAM with them instead,
// with --smartredis behind a SmartRedis door of its own (a program or notebook built on
// SmartRedis, which cannot send the password), as an entity with smartredis: true.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "lib/session/entity_names.hpp"
#include "lib/session/experiment_ref.hpp"
#include "apps/ssim/verbs.hpp"
#include "lib/state/launch_log.hpp"
#include "lib/orchestrator/database.hpp"
#include "lib/state/manifest.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/errors.hpp"
#include "lib/util/layout.hpp"
#include "lib/util/shell_quote.hpp"

namespace ssim::app {
using namespace ssim::session;

namespace {
struct EnvOptions {
  std::vector<std::string> words;
  bool json = false;
  bool smartredis = false;
};

// Runs `program` with `vars` (through the door when asked); returns only when it cannot.
int run_with(const std::vector<std::pair<std::string, std::string>>& vars, const std::vector<std::string>& program,
             bool smartredis) {
  for (const auto& [k, v] : vars) ::setenv(k.c_str(), v.c_str(), 1);
  std::vector<std::string> argv = program;
  if (smartredis) {
    const std::string supervisor = find_supervisor();
    const std::string door = door_beside(supervisor);
    if (supervisor.empty() || ::access(door.c_str(), X_OK) != 0)
      throw EnvironmentError("this ssim has no SmartRedis door (ssim-door beside ssim-supervise): reinstall ssim");
    argv.insert(argv.begin(), {door, "--"});
  }
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  ::execvp(args[0], args.data());
  std::cerr << "ssim: cannot run " << shell_quote(argv[0]) << ": " << std::strerror(errno) << "\n";
  return 127;
}

// Key variables from the environment ssim gave the entity (the launch log).
void add_entity_keys(const std::string& path, const state::EntityRecord& e,
                     std::vector<std::pair<std::string, std::string>>& vars) {
  const auto job = state::find_launch(state::launch_log_path(path), e.run_dir);
  if (!job) throw UsageError(e.name + " has not started yet: its key variables are not known");
  for (const char* key : {"SSKEYOUT", "SSKEYIN"})
    if (const auto value = state::job_variable(*job, key)) vars.emplace_back(key, *value);
}
}  // namespace

Action add_env(CLI::App& app) {
  auto o = std::make_shared<EnvOptions>();
  auto* cmd = app.add_subcommand("env", "Print the database variables (and an entity's keys) as export lines");
  cmd->add_option("EXP_ENTITY", o->words, "[EXP] [ENTITY]")->expected(0, 2);
  cmd->add_flag("--json", o->json, "one JSON object");
  cmd->add_flag("--smartredis", o->smartredis, "with -- PROGRAM: run it behind a SmartRedis door of its own");
  return [o] {
    const std::vector<std::string>& program = program_after_dashes();
    if (o->smartredis && program.empty())
      throw UsageError("--smartredis runs a program: ssim env --smartredis [EXP] [ENTITY] -- PROGRAM ARGS");
    if (o->json && !program.empty()) throw UsageError("--json prints the variables; -- PROGRAM runs one: not both");
    // One word: an experiment when it names one, else an entity of the current one.
    std::string exp = o->words.size() == 2 ? o->words[0] : "";
    std::string entity = o->words.size() == 2 ? o->words[1] : "";
    if (o->words.size() == 1) {
      try {
        exp = resolve_experiment(o->words[0]);
      } catch (const std::exception&) {
        entity = o->words[0];
      }
    }
    const std::string path = resolve_experiment(exp);
    const auto m = state::load_manifest(path);
    const auto ssdb = read_file(orchestrator::ssdb_file(path));
    if (!ssdb) {
      const bool has_database = std::any_of(m.entities.begin(), m.entities.end(), [](const state::EntityRecord& e) {
        return e.type == state::EntityKind::Database;
      });
      throw UsageError("experiment " + m.experiment +
                       (has_database ? " has no database address yet (it starts with ssim run)"
                                     : " has no database (its file has no orchestrator:)"));
    }
    std::string address = *ssdb;
    while (!address.empty() && address.back() == '\n') address.pop_back();
    // The last address of a database that is not running: said, so that nobody waits on
    // a connection that cannot come (ssim status says more).
    for (const auto& e : m.entities)
      if (e.type == state::EntityKind::Database && e.status != state::Status::Running) {
        std::cerr << "ssim: warning: the database of " << m.experiment << " is not running (" << to_string(e.status)
                  << "): these are its last address and password\n";
        break;
      }
    std::vector<std::pair<std::string, std::string>> vars = {{"SSDB", address}};
    const std::string password = orchestrator::experiment_password(path);
    if (!password.empty()) vars.emplace_back("SSDB_PASSWORD", password);
    if (!entity.empty()) {
      add_entity_keys(path, session::one_entity(m, entity), vars);
    }
    if (!program.empty()) return run_with(vars, program, o->smartredis);
    if (o->json) {
      nlohmann::json j = nlohmann::json::object();
      for (const auto& [k, v] : vars) j[k] = v;
      std::cout << j.dump() << "\n";
    } else {
      for (const auto& [k, v] : vars) std::cout << "export " << k << "=" << shell_quote(v) << "\n";
    }
    return 0;
  };
}

std::vector<std::string>& program_after_dashes() {
  static std::vector<std::string> words;
  return words;
}

}  // namespace ssim::app
