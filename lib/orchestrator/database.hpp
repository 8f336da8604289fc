#pragma once
// The experiment's database: shards, their configuration and password, the address
// handshake, cluster formation and shutdown. The shards themselves run as launcher
// steps like any entity (the hidden `ssim _database` command, then the server).
#include <chrono>
#include <functional>
#include <optional>
#include <map>
#include <string>
#include <vector>

#include "lib/plan/plan.hpp"

namespace ssim::orchestrator {

struct Shard {
  std::string name;     // "orchestrator", or "orchestrator_<i>" for a cluster
  std::string run_dir;  // <path>/orchestrator, or <path>/orchestrator/orchestrator_<i>
  int port = 0;
};
std::vector<Shard> shards_of(const plan::Database& db);

struct Address {
  std::string host;
  int port = 0;
};

// The experiment's password: generated (32 random bytes, hex) and stored in
// <path>/.ssim/db_password with mode 0600 on first use; "" with password: none.
std::string ensure_password(const plan::Plan& plan);
std::string read_password(const std::string& experiment_path);

// Writes each shard's configuration (mode 0600: it holds the password).
void write_shard_configs(const plan::Plan& plan, const std::string& password);

// `ssim _database ... -- BINARY CONFIG`: resolves and reports the address on the node
// the step lands on, then execs the server; inside orchestrator.container when
// `container` (the runtime's words before the server, lib/launch/container_command.hpp)
// is given: `--container-word=W` each.
std::vector<std::string> shard_command(const std::string& ssim_exe, const plan::Plan& plan, const Shard& shard,
                                       const std::vector<std::string>& container = {});

// <run_dir>/address.json, written by `ssim _database` once it knows where it binds.
std::string address_file(const std::string& run_dir);
std::optional<Address> read_address(const std::string& run_dir);

// Waits until every shard has reported its address and answers an authenticated PING,
// then forms the cluster when there are several shards and waits for cluster_state:ok.
// `check` runs between tries and throws to give up (a shard ended, Ctrl-C). Throws
// EnvironmentError when `timeout` passes.
std::vector<Address> wait_until_ready(const plan::Plan& plan, const std::string& password,
                                      std::chrono::milliseconds timeout, const std::function<void()>& check);

// SSDB: host:port[,host:port...]
std::string ssdb_value(const std::vector<Address>& addresses);

// SHUTDOWN NOSAVE to every shard that answers; best effort.
// True when the shard whose address is in `run_dir` answers PING within `timeout`.
bool ping_shard(const std::string& run_dir, const std::string& password, std::chrono::milliseconds timeout);

struct ShutdownOutcome {
  bool all_answered = true;  // false: a shard did not answer in time (stopped or hung)
  // Shards whose snapshot could not be written (run_dir -> the cause, "No space left on
  // device"): they refused to shut down and still hold the only copy of their data.
  std::map<std::string, std::string> save_failed;
};

// Sends SHUTDOWN SAVE (a snapshot in the shard's run directory, which the shard loads
// when it starts again there: --resume) or SHUTDOWN NOSAVE to each shard.
ShutdownOutcome shutdown_shards(const std::vector<std::string>& run_dirs, const std::string& password, bool save);

// Why a shard could not save, from its server.log ("No space left on device",
// "Permission denied"), or a pointer to that log.
std::string save_failure_cause(const std::string& run_dir);

// .ssim/ssdb: the address entities get, for `ssim env` and Client.from_experiment.
void record_ssdb(const plan::Plan& plan, const std::string& ssdb);
std::string ssdb_file(const std::string& experiment_path);
// The database password of the experiment at `path`: its own, or the external one's file.
std::string experiment_password(const std::string& experiment_path);

// PINGs every address of an external database; throws EnvironmentError naming the one
// that does not answer.
void check_external(const std::string& addresses, const std::string& password, std::chrono::milliseconds timeout);

// The last `n` lines the server logged (server.log, then stderr), for error messages.
std::string last_log_lines(const std::string& run_dir, const std::string& name, int n);

}  // namespace ssim::orchestrator
