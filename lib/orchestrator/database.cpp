#include "lib/orchestrator/database.hpp"
#include "lib/orchestrator/inference_files.hpp"
#include "lib/util/experiment_dir.hpp"

#include "lib/client/router.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "lib/orchestrator/config.hpp"
#include "lib/client/connection.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/random_hex.hpp"
#include "lib/util/errors.hpp"

namespace ssim::orchestrator {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::vector<Shard> shards_of(const plan::Database& db) {
  std::vector<Shard> out;
  if (db.external()) return out;  // nothing of ssim's own to run
  if (db.shards == 1) return {Shard{"orchestrator", db.run_dir, db.port}};
  for (int i = 0; i < db.shards; ++i) {
    const std::string name = "orchestrator_" + std::to_string(i);
    out.push_back(Shard{name, db.run_dir + "/" + name, db.port + i});
  }
  return out;
}

namespace {
std::string password_file(const std::string& path) { return ssim_dir(path) + "/db_password"; }

// Sleeps between tries of a condition that has its own deadline.
void pause_briefly(std::chrono::milliseconds& wait) {
  std::this_thread::sleep_for(wait);
  wait = std::min(wait * 2, std::chrono::milliseconds(50));
}
}  // namespace

std::string read_password(const std::string& experiment_path) {
  auto text = read_file(password_file(experiment_path));
  if (!text) return "";
  while (!text->empty() && (text->back() == '\n')) text->pop_back();
  return *text;
}

std::string ensure_password(const plan::Plan& plan) {
  if (!plan.database || !plan.database->password) return "";
  if (plan.database->external()) {  // the user's file, read at each start
    std::string text = read_file(plan.database->password_file).value_or("");
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
    return text;
  }
  std::string existing = read_password(plan.path);
  if (!existing.empty()) return existing;
  const std::string password = random_hex(32, "the database password");
  write_file_atomically(password_file(plan.path), password + "\n", 0600);
  return password;
}

void write_shard_configs(const plan::Plan& plan, const std::string& password) {
  int index = 0;
  for (const auto& s : shards_of(*plan.database)) {
    fs::create_directories(s.run_dir);
    write_file_atomically(s.run_dir + "/redis.conf", render_config(plan, index++, s.run_dir, password), 0600);
    std::error_code ec;
    fs::remove(inference_file(s.run_dir), ec);  // the previous run's service: not this one's
  }
}

std::vector<std::string> shard_command(const std::string& ssim_exe, const plan::Plan& plan, const Shard& shard,
                                       const std::vector<std::string>& container) {
  const auto& db = *plan.database;
  std::vector<std::string> argv = {ssim_exe, "_database", "--port", std::to_string(shard.port)};
  if (!db.interface.empty()) argv.insert(argv.end(), {"--interface", db.interface});
  if (plan::runs_here(plan)) argv.push_back("--loopback-default");
  if (db.shards > 1) argv.push_back("--cluster");
  if (db.inference.enabled) argv.push_back("--inference");
  if (db.inference.threads > 0) argv.insert(argv.end(), {"--inference-threads", std::to_string(db.inference.threads)});
  // One word each, joined with '=' so that a word starting with '-' is never read as an option.
  for (const auto& word : container) argv.push_back("--container-word=" + word);
  argv.insert(argv.end(), {"--", db.binary, shard.run_dir + "/redis.conf"});
  return argv;
}

std::string address_file(const std::string& run_dir) { return run_dir + "/address.json"; }

std::optional<Address> read_address(const std::string& run_dir) {
  const auto text = read_file(address_file(run_dir));
  if (!text) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  return Address{j.value("host", ""), j.value("port", 0)};
}

std::string ssdb_value(const std::vector<Address>& addresses) {
  std::string out;
  for (const auto& a : addresses) out += (out.empty() ? "" : ",") + a.host + ":" + std::to_string(a.port);
  return out;
}

namespace {

// The orchestrator's own commands use the data client's connection (hiredis).
using client::Connection;

std::string text_of(const client::Reply& r) {
  return r->str ? std::string(r->str, r->len) : std::to_string(r->integer);
}

bool answers(const Address& a, const std::string& password, std::string& last_error) {
  try {
    Connection c(a.host, a.port, password, std::chrono::milliseconds(500), std::chrono::milliseconds(2000));
    return text_of(c.command({"PING"})) == "PONG";
  } catch (const client::ClientError& e) {
    last_error = e.what();
    return false;
  }
}

// Slots split evenly, each node told about the others, then wait for cluster_state:ok.
void form_cluster(const std::vector<Address>& nodes, const std::string& password, Clock::time_point deadline,
                  const std::function<void()>& check) {
  const int total = 16384;
  const int n = static_cast<int>(nodes.size());
  for (int i = 0; i < n; ++i) {
    Connection c(nodes[i].host, nodes[i].port, password, std::chrono::milliseconds(2000));
    // A shard restarted from its snapshot (--resume) still has its slots (nodes.conf).
    const std::string info = text_of(c.command({"CLUSTER", "INFO"}));
    if (info.find("cluster_slots_assigned:0\r") == std::string::npos &&
        info.find("cluster_slots_assigned:0\n") == std::string::npos)
      continue;
    const int first = total * i / n, last = total * (i + 1) / n - 1;
    c.command({"CLUSTER", "ADDSLOTSRANGE", std::to_string(first), std::to_string(last)});
  }
  // Every pair meets directly: the handshake carries each node's slots at once, where
  // gossip alone takes seconds to spread them.
  for (int i = 0; i < n; ++i) {
    Connection c(nodes[i].host, nodes[i].port, password, std::chrono::milliseconds(2000));
    for (int j = i + 1; j < n; ++j) c.command({"CLUSTER", "MEET", nodes[j].host, std::to_string(nodes[j].port)});
  }
  auto wait = std::chrono::milliseconds(5);
  for (const auto& node : nodes) {
    while (true) {
      check();
      Connection c(node.host, node.port, password, std::chrono::milliseconds(2000));
      const std::string info = text_of(c.command({"CLUSTER", "INFO"}));
      if (info.find("cluster_state:ok") != std::string::npos &&
          info.find("cluster_known_nodes:" + std::to_string(n)) != std::string::npos)
        break;
      if (Clock::now() > deadline)
        throw EnvironmentError("the database cluster did not reach cluster_state:ok in time");
      pause_briefly(wait);
    }
  }
}

}  // namespace

constexpr std::chrono::seconds kNeverListens{5};

namespace {
// The last `n` non-empty lines of `file`, each as "\n  FILE: line".
std::string log_tail(const std::string& file, int n) {
  std::string out;
  const auto text = read_file(file);
  if (!text || text->empty()) return out;
  std::vector<std::string> lines;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) lines.push_back(line);
  const size_t from = lines.size() > static_cast<size_t>(n) ? lines.size() - n : 0;
  for (size_t i = from; i < lines.size(); ++i) out += "\n  " + file.substr(file.rfind('/') + 1) + ": " + lines[i];
  return out;
}

// Each shard's inference service registers itself once its shard answers (and owns its
// slots), then writes inference.json: the database is ready when every one has.
void wait_for_inference(const std::vector<Shard>& shards, Clock::time_point deadline,
                        const std::function<void()>& check) {
  for (const auto& s : shards) {
    auto wait = std::chrono::milliseconds(1);
    while (!fs::exists(inference_file(s.run_dir))) {
      check();
      if (Clock::now() > deadline)
        throw EnvironmentError("the inference service beside database " + s.name + " did not start" +
                               log_tail(s.run_dir + "/inference.log", 5));
      pause_briefly(wait);
    }
  }
}
}  // namespace

std::vector<Address> wait_until_ready(const plan::Plan& plan, const std::string& password,
                                      std::chrono::milliseconds timeout, const std::function<void()>& check) {
  const auto deadline = Clock::now() + timeout;
  const auto shards = shards_of(*plan.database);
  std::vector<Address> addresses(shards.size());
  std::string last_error;
  for (size_t i = 0; i < shards.size(); ++i) {
    auto wait = std::chrono::milliseconds(1);
    std::optional<Clock::time_point> refused_since;
    while (true) {
      check();
      if (auto a = read_address(shards[i].run_dir)) {
        addresses[i] = *a;
        if (answers(*a, password, last_error)) break;
        // A Redis-compatible server listens within milliseconds of starting (even while it
        // loads a snapshot it answers LOADING): a port still refused after seconds means
        // the program runs but is no such server.
        const bool refused = last_error.find("refused") != std::string::npos;
        if (!refused)
          refused_since.reset();
        else if (!refused_since)
          refused_since = Clock::now();
        else if (Clock::now() - *refused_since > kNeverListens)
          throw EnvironmentError("database " + shards[i].name + ": " + plan.database->binary +
                                 " (orchestrator.binary) runs but has not opened port " + std::to_string(a->port) +
                                 " in " + std::to_string(kNeverListens.count()) +
                                 " s: is it a Redis-compatible server?" +
                                 last_log_lines(shards[i].run_dir, shards[i].name, 5));
      }
      if (Clock::now() > deadline) {
        std::string what = addresses[i].port ? "did not answer an authenticated PING (" + last_error + ")"
                                             : "did not report its address";
        throw EnvironmentError("database " + shards[i].name + " " + what + " within " +
                               std::to_string(timeout.count() / 1000) + " s" +
                               last_log_lines(shards[i].run_dir, shards[i].name, 5));
      }
      pause_briefly(wait);
    }
  }
  if (shards.size() > 1) form_cluster(addresses, password, deadline, check);
  if (plan.database->inference.enabled) wait_for_inference(shards, deadline, check);
  return addresses;
}

std::string ssdb_file(const std::string& experiment_path) { return ssim_dir(experiment_path) + "/ssdb"; }

// The address, and for an external database where its password is (never a copy).
void record_ssdb(const plan::Plan& plan, const std::string& ssdb) {
  write_file_atomically(ssdb_file(plan.path), ssdb + "\n", 0644);
  if (plan.database && plan.database->external())
    write_file_atomically(ssim_dir(plan.path) + "/db_password_file", plan.database->password_file + "\n", 0600);
}

std::string experiment_password(const std::string& experiment_path) {
  std::string own = read_password(experiment_path);
  if (!own.empty()) return own;
  std::string where = read_file(ssim_dir(experiment_path) + "/db_password_file").value_or("");
  while (!where.empty() && where.back() == '\n') where.pop_back();
  if (where.empty()) return "";
  std::string text = read_file(where).value_or("");
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return text;
}

void check_external(const std::string& addresses, const std::string& password, std::chrono::milliseconds timeout) {
  for (const auto& a : client::split_list(addresses)) {
    const bool unix_socket = a.rfind("unix:", 0) == 0;
    const size_t colon = a.rfind(':');
    try {
      Connection c(unix_socket ? a.substr(5) : a.substr(0, colon), unix_socket ? 0 : std::stoi(a.substr(colon + 1)),
                   password, timeout, timeout);
      c.command({"PING"});
    } catch (const client::ClientError& e) {
      throw EnvironmentError(std::string("the external database (orchestrator.address) does not answer: ") + e.what());
    }
  }
}

bool ping_shard(const std::string& run_dir, const std::string& password, std::chrono::milliseconds timeout) {
  const auto a = read_address(run_dir);
  if (!a) return true;  // not up yet: nothing to say
  try {
    Connection c(a->host, a->port, password, timeout, timeout);
    c.command({"PING"});
    return true;
  } catch (const client::ClientError&) {
    return false;
  }
}

ShutdownOutcome shutdown_shards(const std::vector<std::string>& run_dirs, const std::string& password, bool save) {
  ShutdownOutcome out;
  for (const auto& dir : run_dirs) {
    const auto a = read_address(dir);
    if (!a) continue;
    try {
      // Saving takes as long as the data is big: the reply (none: the connection just
      // closes) may take a while; only a refused connection or a silent server count.
      Connection c(a->host, a->port, password, std::chrono::milliseconds(500), std::chrono::milliseconds(1000));
      if (save) {
        c.command({"PING"});  // a server that answers now is saving, not hung, while the reply waits
        c.set_io_timeout(std::chrono::minutes(10));
      }
      c.command({"SHUTDOWN", save ? "SAVE" : "NOSAVE"});
    } catch (const client::ReplyError& e) {
      // "Errors trying to SHUTDOWN. Check logs.": the snapshot failed and the server,
      // rightly, stays up with the data.
      if (e.text.find("SHUTDOWN") != std::string::npos) out.save_failed[dir] = save_failure_cause(dir);
    } catch (const client::ClientError& e) {
      // SHUTDOWN closes the connection without a reply (or the server is already gone):
      // both fine. A timeout means the server does not answer.
      if (std::string(e.what()).find("timed out") != std::string::npos ||
          std::string(e.what()).find("timeout") != std::string::npos)
        out.all_answered = false;
    }
  }
  return out;
}

std::string save_failure_cause(const std::string& run_dir) {
  const auto text = read_file(run_dir + "/server.log");
  std::string cause;
  if (text) {
    std::istringstream in(*text);
    std::string line;
    while (std::getline(in, line)) {
      // "Write error saving DB on disk(rdbSaveRio): No space left on device",
      // "Failed opening the temp RDB file temp-1.rdb (in server root dir /x) for saving: Permission denied"
      if (line.find("saving DB on disk") == std::string::npos && line.find("for saving:") == std::string::npos)
        continue;
      const size_t colon = line.rfind(": ");
      if (colon != std::string::npos) cause = line.substr(colon + 2);
    }
  }
  return cause.empty() ? "see " + run_dir + "/server.log" : cause;
}

std::string last_log_lines(const std::string& run_dir, const std::string& name, int n) {
  return log_tail(run_dir + "/server.log", n) + log_tail(run_dir + "/" + name + ".err", n);
}

}  // namespace ssim::orchestrator
