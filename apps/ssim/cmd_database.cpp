// ssim _database (hidden): the database step. Runs on the node the launcher placed the
// shard on; resolves the address to bind there, checks the port, reports the address in
// the run directory (the engine waits for it), then becomes the server (exec).
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "apps/ssim/verbs.hpp"
#include "lib/orchestrator/address.hpp"
#include "lib/orchestrator/database.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/layout.hpp"

namespace ssim::app {

namespace {
struct DatabaseOptions {
  int port = 0;
  std::string interface;
  bool loopback_default = false;
  bool cluster = false;
  std::vector<std::string> command;  // BINARY CONFIG
};

int fail(const std::string& message, int code) {
  std::cerr << "ssim: database: " << message << std::endl;
  return code;
}
}  // namespace

Action add_database(CLI::App& app) {
  auto o = std::make_shared<DatabaseOptions>();
  auto* cmd = app.add_subcommand("_database", "");
  cmd->group("");  // internal: not listed in --help
  cmd->add_option("--port", o->port)->required();
  cmd->add_option("--interface", o->interface);
  cmd->add_flag("--loopback-default", o->loopback_default);
  cmd->add_flag("--cluster", o->cluster);
  cmd->add_option("COMMAND", o->command)->required()->expected(2);
  return [o] {
    std::string address;
    try {
      address = orchestrator::resolve_bind_address(o->interface, o->loopback_default);
    } catch (const std::exception& e) {
      return fail(e.what(), 3);
    }
    const std::string binary = find_on_path(o->command[0]);
    if (binary.empty()) {
      const char* path = std::getenv("PATH");
      return fail("cannot find the server program \"" + o->command[0] + "\" (orchestrator.binary) on the PATH (" +
                      (path ? path : "") + "); install redis-server or give binary: a full path",
                  127);
    }
    for (int port : {o->port, o->port + 10000}) {
      const std::string problem = orchestrator::port_problem(address, port);
      if (!problem.empty()) return fail(problem + (port != o->port ? " (the cluster bus port)" : ""), 3);
      if (!o->cluster) break;
    }
    const std::string run_dir = std::filesystem::path(o->command[1]).parent_path().string();
    write_file_atomically(orchestrator::address_file(run_dir),
                          nlohmann::json{{"host", address}, {"port", o->port}}.dump() + "\n");
    const std::string port = std::to_string(o->port);
    std::vector<std::string> argv = {binary, o->command[1], "--bind", address, "--port", port};
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    ::execv(binary.c_str(), args.data());
    return fail("cannot run " + binary + ": " + std::strerror(errno), 127);
  };
}

}  // namespace ssim::app
