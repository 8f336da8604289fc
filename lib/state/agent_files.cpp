#include "lib/state/agent_files.hpp"

namespace ssim::state {

namespace {
std::vector<std::string> fields(const std::string& text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = text.find('\0', at);
    if (end == std::string::npos) return {};  // cut short: no field without its NUL
    out.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return out;
}
}  // namespace

std::string agent_node_dir(const std::string& agents_dir, const std::string& node) { return agents_dir + "/" + node; }
std::string agent_inbox(const std::string& agents_dir, const std::string& node) {
  return agent_node_dir(agents_dir, node) + "/inbox";
}

std::string encode_agent_start(const std::vector<AgentJob>& jobs) {
  std::string out;
  for (const auto& j : jobs) out += j.run_dir + '\0' + j.name + '\0';
  return out;
}

std::optional<std::vector<AgentJob>> decode_agent_start(const std::string& text) {
  const auto f = fields(text);
  if (f.empty() || f.size() % 2 != 0) return std::nullopt;
  std::vector<AgentJob> jobs;
  for (size_t i = 0; i < f.size(); i += 2) {
    if (f[i].empty() || f[i + 1].empty()) return std::nullopt;
    jobs.push_back({f[i], f[i + 1]});
  }
  return jobs;
}

std::string encode_agent_cancel(const AgentCancel& cancel) {
  std::string out = std::string(cancel.force ? "KILL" : "TERM") + '\0';
  for (const auto& d : cancel.run_dirs) out += d + '\0';
  return out;
}

std::optional<AgentCancel> decode_agent_cancel(const std::string& text) {
  const auto f = fields(text);
  if (f.empty() || (f[0] != "TERM" && f[0] != "KILL")) return std::nullopt;
  AgentCancel c;
  c.force = f[0] == "KILL";
  c.run_dirs.assign(f.begin() + 1, f.end());
  return c;
}

}  // namespace ssim::state
