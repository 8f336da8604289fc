// run:, batch:, allocation: and orchestrator: sections.
#include "lib/spec/parse_parts.hpp"

namespace ssim::spec {

namespace {
constexpr int kClusterBusOffset = 10000;  // Redis Cluster's bus port is port + 10000
const std::vector<std::string> kRunKeys = {"nodes", "ntasks",    "tasks_per_node", "cpus_per_task", "gpus_per_task",
                                           "time",  "exclusive", "hosts",          "mpi",           "launcher_args",
                                           "agent", "rank_env",  "torchrun"};
}  // namespace

RunSettings read_run(const YamlReader& r, const YAML::Node& node, const std::string& field) {
  RunSettings run;
  run.loc = YamlReader::loc(node);
  if (!node || node.IsNull()) return run;
  r.expect_map(node, field, kRunKeys);
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string key = it->first.Scalar();
    const std::string sub = join_field(field, key);
    if (key == "hosts") {
      run.hosts = r.line_list(it->second, sub);
    } else if (key == "launcher_args") {
      run.launcher_args = r.option_map(it->second, sub);
    } else {
      run.fields.emplace_back(key, r.line(it->second, sub));
    }
  }
  return run;
}

BatchSettings read_batch(const YamlReader& r, const YAML::Node& node, const std::string& field, bool allow_setup) {
  std::vector<std::string> keys = {"nodes", "time", "account", "queue", "options"};
  if (allow_setup) keys.push_back("setup");
  BatchSettings b;
  b.loc = YamlReader::loc(node);
  if (node.IsNull()) return b;
  r.expect_map(node, field, keys);
  if (auto n = node["nodes"]) b.nodes = r.integer(n, join_field(field, "nodes"), 1, 1000000);
  if (auto n = node["time"]) {
    b.time = r.line(n, join_field(field, "time")).value;
    if (!is_slurm_time(b.time))
      r.fail(n, join_field(field, "time"),
             "expected a time like \"02:00:00\" or \"1-00:00:00\" (minutes and seconds up to 59), got \"" +
                 printable(b.time) + "\"");
  }
  if (auto n = node["account"]) b.account = r.line(n, join_field(field, "account")).value;
  if (auto n = node["queue"]) b.queue = r.line(n, join_field(field, "queue")).value;
  if (auto n = node["options"]) {
    b.options = r.option_map(n, join_field(field, "options"));
    for (const auto& [k, v] : b.options)
      if (v.value.find('"') != std::string::npos)
        r.fail(v.loc, join_field(field, "options." + k), "a scheduler option cannot hold a double quote");
  }
  if (auto n = node["setup"])
    for (auto& t : r.line_list(n, join_field(field, "setup"))) b.setup.push_back(std::move(t.value));
  return b;
}

// `inference: true`, or a mapping {threads: N} (which turns it on).
static Inference read_inference(const YamlReader& r, const YAML::Node& node, const std::string& field) {
  Inference inf;
  inf.loc = YamlReader::loc(node);
  inf.field = field;
  if (node.IsScalar()) {
    inf.enabled = r.boolean(node, field);
    return inf;
  }
  r.expect_map(node, field, {"threads"});
  inf.enabled = true;
  if (auto n = node["threads"]) inf.threads = r.integer(n, join_field(field, "threads"), 1, 1024);
  return inf;
}

ColocatedDb read_colocated_db(const YamlReader& r, const YAML::Node& node, const std::string& field) {
  ColocatedDb c;
  c.loc = YamlReader::loc(node);
  if (node.IsNull()) return c;
  if (!node.IsMap())
    r.fail(
        node, field,
        "expected a mapping (port or unix_socket, cpus, binary, config, inference), got " + YamlReader::describe(node));
  r.expect_map(node, field, {"port", "unix_socket", "cpus", "binary", "config", "inference"});
  auto f = [&](const char* key) { return join_field(field, key); };
  if (auto n = node["port"]) c.port = r.integer(n, f("port"), 1, 65535);
  if (auto n = node["unix_socket"]) {
    const bool unix_socket = r.boolean(n, f("unix_socket"));
    if (unix_socket && c.port)
      r.fail(n, f("unix_socket"), "give either port (loopback TCP) or unix_socket: true, not both");
    if (!unix_socket && !c.port) r.fail(n, f("unix_socket"), "false needs a port (loopback TCP)");
  }
  if (auto n = node["cpus"]) c.cpus = r.integer(n, f("cpus"), 0, 1024);
  if (auto n = node["inference"]) c.inference = read_inference(r, n, f("inference"));
  if (auto n = node["binary"]) {
    c.binary = r.line(n, f("binary")).value;
    if (c.binary.empty()) r.fail(n, f("binary"), "must not be empty");
  }
  if (auto n = node["config"])
    for (auto& [k, v] : r.option_map(n, f("config"))) c.config.emplace_back(k, v.value);
  return c;
}

Orchestrator read_orchestrator(const YamlReader& r, const YAML::Node& node, const std::string& field) {
  Orchestrator o;
  o.loc = YamlReader::loc(node);
  if (node.IsNull()) return o;
  r.expect_map(node, field,
               {"port", "shards", "interface", "binary", "config", "password", "persist", "run", "batch", "snapshot",
                "address", "password_file", "inference", "container"});
  auto f = [&](const char* key) { return join_field(field, key); };
  if (auto n = node["address"]) {
    // A database that runs already: ssim neither starts nor stops it.
    for (const char* key : {"port", "shards", "interface", "binary", "config", "password", "persist", "run", "batch",
                            "snapshot", "inference", "container"})
      if (node[key]) r.fail(node[key], f(key), "does not apply to an external database (orchestrator.address)");
    o.address = r.line(n, f("address")).value;
    std::string list = o.address;
    size_t i = 0;
    while (i <= list.size()) {
      size_t j = list.find(',', i);
      if (j == std::string::npos) j = list.size();
      const std::string a = list.substr(i, j - i);
      const size_t colon = a.rfind(':');
      bool ok = colon != std::string::npos && colon > 0 && colon + 1 < a.size() && colon + 6 >= a.size();
      for (size_t k = colon + 1; ok && k < a.size(); ++k) ok = std::isdigit(static_cast<unsigned char>(a[k]));
      if (ok) ok = std::stoi(a.substr(colon + 1)) >= 1 && std::stoi(a.substr(colon + 1)) <= 65535;
      if (!ok && a.rfind("unix:/", 0) != 0)
        r.fail(n, f("address"), "expected host:port[,host:port...] or unix:/path, got \"" + printable(a) + "\"");
      i = j + 1;
    }
    if (auto p = node["password_file"]) {
      o.password_file = r.line(p, f("password_file")).value;  // resolved against the YAML's folder by the plan
      o.password_file_loc = YamlReader::loc(p);
      if (o.password_file.empty()) r.fail(p, f("password_file"), "must not be empty");
    }
    return o;
  }
  if (auto n = node["password_file"])
    r.fail(n, f("password_file"), "only with orchestrator.address (an external database)");
  if (auto n = node["snapshot"]) o.snapshot = r.boolean(n, f("snapshot"));
  if (auto n = node["port"]) {
    if (n.IsScalar() && n.Scalar() == "auto")
      o.port = 0;
    else
      o.port = r.integer(n, f("port"), 1, 65535);
  }
  if (auto n = node["shards"]) o.shards = r.integer(n, f("shards"), 1, 1024);
  if (auto n = node["interface"]) o.interface = r.line(n, f("interface")).value;
  if (auto n = node["binary"]) {
    o.binary = r.line(n, f("binary")).value;
    if (o.binary.empty()) r.fail(n, f("binary"), "must not be empty");
  }
  if (auto n = node["config"]) {
    for (auto& [k, v] : r.option_map(n, f("config"))) o.config.emplace_back(k, v.value);
  }
  if (auto n = node["password"])
    o.password = r.choice(n, f("password"), {"auto", "none"}) == "auto" ? PasswordMode::Auto : PasswordMode::None;
  if (auto n = node["persist"]) o.persist = r.boolean(n, f("persist"));
  if (auto n = node["inference"]) o.inference = read_inference(r, n, f("inference"));
  if (auto n = node["run"]) o.run = read_run(r, n, f("run"));
  if (auto n = node["batch"]) o.batch = read_batch(r, n, f("batch"), true);
  if (auto n = node["container"]) o.container = read_container(r, n, f("container"), false);
  if (o.shards > 1 && o.port + o.shards - 1 > 65535)
    r.fail(node["port"] ? node["port"] : node, f("port"),
           "port + shards - 1 exceeds 65535 (shard i listens on port + i)");
  if (o.shards > 1 && o.port + kClusterBusOffset + o.shards - 1 > 65535)
    r.fail(node["port"] ? node["port"] : node, f("port"),
           "a cluster shard also listens on port + 10000 (the cluster bus), which must fit in 65535: "
           "use a port of at most " +
               std::to_string(65535 - kClusterBusOffset - o.shards + 1));
  return o;
}

}  // namespace ssim::spec
