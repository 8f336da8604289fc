#include "lib/state/job_id.hpp"

#include <cctype>

namespace ssim::state {

JobId JobId::supervisor(int pid, std::string ticks, std::string host) {
  JobId id = of(Kind::Supervisor);
  id.pid = pid, id.ticks = std::move(ticks), id.host = std::move(host);
  return id;
}

JobId JobId::batch_job(std::string job) {
  JobId id = of(Kind::Job);
  id.job = std::move(job);
  return id;
}

JobId JobId::agent(std::string generation, std::string node) {
  JobId id = of(Kind::Agent);
  id.job = std::move(generation), id.node = std::move(node);
  return id;
}

std::string JobId::str() const {
  switch (kind) {
    case Kind::None:
      return "";
    case Kind::Unknown:
      return "?";
    case Kind::Refused:
      return "0";
    case Kind::Supervisor: {
      std::string s = std::to_string(pid);
      if (!ticks.empty() || !host.empty()) s += "@" + ticks;
      if (!host.empty()) s += "@" + host;
      return s;
    }
    case Kind::Job:
      return "job:" + job;
    case Kind::Agent:
      return "agent:" + job + ":" + node;
  }
  return "";
}

std::string JobId::label(const std::string& here) const {
  switch (kind) {
    case Kind::Supervisor:
      return std::to_string(pid) + (host.empty() || host == here ? "" : " on " + host);
    case Kind::Job:
      return job;
    case Kind::Agent:
      return "agent on " + node;
    case Kind::Unknown:
      return "?";
    default:
      return "-";
  }
}

namespace {
bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (const char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}
}  // namespace

JobId parse_job_id(const std::string& text) {
  if (text == "?") return JobId::unknown();
  if (text == "0") return JobId::refused();
  if (starts_with(text, "job:") || starts_with(text, "sbatch:")) {
    const std::string id = text.substr(text.find(':') + 1);
    return id.empty() ? JobId{} : JobId::batch_job(id);
  }
  if (starts_with(text, "agent:")) {
    const size_t colon = text.find(':', 6);
    if (colon == std::string::npos || colon == 6 || colon + 1 == text.size()) return {};
    return JobId::agent(text.substr(6, colon - 6), text.substr(colon + 1));
  }
  const size_t at = text.find('@');
  const std::string pid = text.substr(0, at);
  if (!all_digits(pid) || pid.size() > 9) return {};
  if (at == std::string::npos) return JobId::supervisor(std::stoi(pid), "", "");
  const size_t at2 = text.find('@', at + 1);
  const std::string ticks = text.substr(at + 1, at2 == std::string::npos ? std::string::npos : at2 - at - 1);
  return JobId::supervisor(std::stoi(pid), ticks, at2 == std::string::npos ? "" : text.substr(at2 + 1));
}

}  // namespace ssim::state
