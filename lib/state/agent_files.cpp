#include "lib/state/agent_files.hpp"

#include <cstdlib>

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

std::string agent_jobs(const std::string& agents_dir, const std::string& node) {
  return agent_node_dir(agents_dir, node) + "/jobs";
}

std::string encode_job_handoff(const AgentJob& job) {
  return job.run_dir + '\0' + job.name + '\0' + std::to_string(job.launch) + '\0' + job.journals + '\0' +
         std::to_string(job.spec.size()) + '\0' + job.spec;
}

bool take_job_handoff(std::string& buffer, AgentJob& job) {
  size_t ends[5];
  for (size_t i = 0, from = 0; i < 5; from = ends[i++] + 1)
    if ((ends[i] = buffer.find('\0', from)) == std::string::npos) return false;
  const auto field = [&](size_t i) {
    const size_t from = i == 0 ? 0 : ends[i - 1] + 1;
    return buffer.substr(from, ends[i] - from);
  };
  const std::string size_text = field(4), launch_text = field(2);
  char* end = nullptr;
  const unsigned long long size = std::strtoull(size_text.c_str(), &end, 10);
  const bool number = !size_text.empty() && *end == '\0';
  if (number && buffer.size() - ends[4] - 1 < size) return false;
  job.run_dir = field(0);
  job.name = field(1);
  job.launch = std::strtol(launch_text.c_str(), &end, 10);
  if (launch_text.empty() || *end != '\0') job.launch = -1;
  job.journals = field(3);
  job.spec = number ? buffer.substr(ends[4] + 1, size) : std::string();
  buffer.erase(0, ends[4] + 1 + (number ? size : 0));
  return true;
}

std::string encode_agent_start(const std::vector<AgentJob>& jobs) {
  std::string out;
  for (const auto& j : jobs) out += encode_job_handoff(j);
  return out;
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
