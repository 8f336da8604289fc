#include "lib/orchestrator/config.hpp"

#include "redis_conf_template.hpp"

namespace ssim::orchestrator {

namespace {
void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t i = s.find(from); i != std::string::npos; i = s.find(from, i + to.size())) s.replace(i, from.size(), to);
}

// Redis config values with spaces or quotes must be double-quoted.
std::string quoted(const std::string& v) {
  if (!v.empty() && v.find_first_of(" \t\"'\\") == std::string::npos) return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}
}  // namespace

std::string render_config(const plan::Plan& plan, int shard, const std::string& shard_dir,
                          const std::string& password) {
  const auto& db = *plan.database;
  std::string text = kRedisConfTemplate;
  replace_all(text, "@EXPERIMENT@", plan.name);
  replace_all(text, "@SHARD@", std::to_string(shard));
  replace_all(text, "@DIR@", quoted(shard_dir));
  replace_all(text, "@LOGFILE@", quoted(shard_dir + "/server.log"));
  // Without a password, protected mode would refuse every non-loopback client.
  replace_all(text, "@PROTECTED@", password.empty() ? "no" : "yes");
  replace_all(text, "@CLUSTER@",
              db.shards > 1 ? "cluster-enabled yes\ncluster-config-file nodes.conf\ncluster-node-timeout 5000"
                            : "cluster-enabled no");
  replace_all(text, "@PASSWORD@", password.empty() ? "" : "requirepass " + quoted(password));
  for (const auto& [k, v] : db.config) text += k + " " + v + "\n";
  return text;
}

}  // namespace ssim::orchestrator
