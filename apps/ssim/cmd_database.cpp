// ssim _database (hidden): the database step. Runs on the node the launcher placed the
// shard on; resolves the address to bind there, checks the port, reports the address in
// the run directory (the engine waits for it), then becomes the server (exec).
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "apps/ssim/database_pair.hpp"
#include "apps/ssim/verbs.hpp"
#include "lib/orchestrator/address.hpp"
#include "lib/orchestrator/database.hpp"
#include "lib/orchestrator/inference_files.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/layout.hpp"

namespace ssim::app {

namespace {
struct DatabaseOptions {
  int port = 0;
  std::string interface;
  bool loopback_default = false;
  bool cluster = false;
  bool inference = false;
  int inference_threads = 0;
  std::vector<std::string> command;    // BINARY CONFIG
  std::vector<std::string> container;  // the runtime's words before BINARY (orchestrator.container)
};

// The server's password, from the configuration ssim wrote for it ("" for none).
std::string password_in_config(const std::string& config) {
  std::ifstream in(config);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("requirepass ", 0) != 0) continue;
    std::string v = line.substr(12);
    if (v.size() >= 2 && v.front() == '"') {
      std::string out;
      for (size_t i = 1; i + 1 < v.size(); ++i) out += v[i] == '\\' && i + 2 < v.size() ? v[++i] : v[i];
      return out;
    }
    return v;
  }
  return "";
}

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
  cmd->add_flag("--inference", o->inference);
  cmd->add_option("--inference-threads", o->inference_threads);
  cmd->add_option("--container-word", o->container)->allow_extra_args(false);
  cmd->add_option("COMMAND", o->command)->required()->expected(2);
  return [o] {
    std::string address;
    try {
      address = orchestrator::resolve_bind_address(o->interface, o->loopback_default);
    } catch (const std::exception& e) {
      return fail(e.what(), 3);
    }
    // In a container the server is the image's: the runtime is what must be here.
    const std::string binary = find_on_path(o->container.empty() ? o->command[0] : o->container[0]);
    if (binary.empty() && !o->container.empty())
      return fail("cannot find the container runtime \"" + o->container[0] + "\" (orchestrator.container) on the PATH",
                  127);
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
    // In a container: the runtime's words, then the server as the image names it.
    std::vector<std::string> argv = o->container;
    argv.insert(argv.end(), {o->command[0], o->command[1], "--bind", address, "--port", port});
    argv[0] = binary;  // as found on the PATH
    if (o->inference) {
      std::error_code ec;
      std::filesystem::remove(orchestrator::inference_file(run_dir), ec);  // the previous run's service
      const std::string service = find_inference_service();
      if (service.empty())
        return fail(
            "orchestrator.inference is on, but this ssim has no inference service (" + inference_service_fix() + ")",
            3);
      std::vector<std::string> service_argv = {service,     "--db", address + ":" + port, "--listen", address,
                                               "--run-dir", run_dir};
      if (o->cluster) service_argv.push_back("--cluster");
      // The server also listens on a Unix socket in its run directory, the service's own
      // shorter way to it (when the path fits in a socket address).
      const std::string socket = run_dir + "/redis.sock";
      if (socket.size() < 100) {
        argv.insert(argv.end(), {"--unixsocket", socket, "--unixsocketperm", "700"});
        service_argv.insert(service_argv.end(), {"--db-socket", socket});
      }
      if (o->inference_threads > 0)
        service_argv.insert(service_argv.end(), {"--threads", std::to_string(o->inference_threads)});
      return run_server_beside_service(argv, service_argv, run_dir + "/inference.log",
                                       password_in_config(o->command[1]));
    }
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    ::execv(binary.c_str(), args.data());
    return fail("cannot run " + binary + ": " + std::strerror(errno), 127);
  };
}

}  // namespace ssim::app
