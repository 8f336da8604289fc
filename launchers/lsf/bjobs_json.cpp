#include "launchers/lsf/bjobs_json.hpp"

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "launchers/batch/state_table.hpp"

namespace ssim::launchers::lsf {
using namespace ssim::launch;

using state::Status;

namespace {
// bjobs STAT values (IBM Spectrum LSF, "bjobs -o stat").
constexpr StateRow kLsfStates[] = {
    {"PEND", StateClass::Pending},
    {"PSUSP", StateClass::Pending},
    {"WAIT", StateClass::Pending},
    {"PROV", StateClass::Pending},
    {"RUN", StateClass::Running},
    {"USUSP", StateClass::Running},
    {"SSUSP", StateClass::Running},
    {"UNKWN", StateClass::Running, "LSF lost contact with the job's host (UNKWN)"},
    {"DONE", StateClass::Ended},
    {"POST_DONE", StateClass::Ended},
    {"EXIT", StateClass::Failed},
    {"POST_ERR", StateClass::Failed},
    {"ZOMBI", StateClass::Failed, "the job's host became unreachable (ZOMBI)"},
};
}  // namespace

JobStatus status_from_lsf(const std::string& stat, const std::string& exit_code, const std::string& exit_reason) {
  JobStatus s;
  const auto row = find_state(kLsfStates, stat);
  if (!row) {
    s.status = Status::Unknown;
    s.reason = "LSF state " + stat;
    return s;
  }
  if (row->kind == StateClass::Pending || row->kind == StateClass::Running) {
    s.status = row->kind == StateClass::Pending ? Status::Pending : Status::Running;
    s.reason = std::string(row->reason);
    return s;
  }
  if (row->kind == StateClass::Ended) {  // DONE: exit code 0
    s.status = Status::Completed;
    s.exit_code = 0;
    return s;
  }
  const int code = exit_code.empty() ? 0 : std::atoi(exit_code.c_str());
  const bool killed = exit_reason.find("TERM_OWNER") != std::string::npos ||
                      exit_reason.find("TERM_ADMIN") != std::string::npos ||
                      exit_reason.find("killed by owner") != std::string::npos;
  s.status = killed ? Status::Cancelled : Status::Failed;
  if (code > 128 && code < 256)
    s.signal = code - 128;
  else if (code > 0)
    s.exit_code = code;
  if (exit_reason.find("TERM_RUNLIMIT") != std::string::npos)
    s.reason = "time limit reached (TERM_RUNLIMIT)";
  else if (exit_reason.find("TERM_MEMLIMIT") != std::string::npos)
    s.reason = "memory limit reached (TERM_MEMLIMIT)";
  else if (!exit_reason.empty())
    s.reason = exit_reason;
  else if (s.exit_code)
    s.reason = "exit code " + std::to_string(*s.exit_code);
  if (s.reason.empty()) s.reason = std::string(row->reason);  // ZOMBI says why by itself
  return s;
}

std::optional<std::map<std::string, JobStatus>> parse_bjobs_json(const std::string& out) {
  const size_t begin = out.find('{'), end = out.rfind('}');
  if (begin == std::string::npos || end == std::string::npos || end < begin) return std::nullopt;
  const auto doc = nlohmann::json::parse(out.substr(begin, end - begin + 1), nullptr, false);
  if (!doc.is_object()) return std::nullopt;
  std::map<std::string, JobStatus> result;
  const auto records = doc.find("RECORDS");
  if (records == doc.end() || !records->is_array()) return result;
  static const std::regex not_found("Job <([^>]+)> is not found");
  for (const auto& r : *records) {
    if (!r.is_object()) continue;
    const auto text = [&](const char* key) {
      const auto v = r.find(key);
      return v != r.end() && v->is_string() ? v->get<std::string>() : std::string();
    };
    std::string id = text("JOBID");
    if (r.contains("ERROR")) {
      std::smatch m;
      const std::string error = text("ERROR");
      const bool forgotten = std::regex_search(error, m, not_found);
      if (id.empty() && forgotten) id = m[1].str();
      if (id.empty()) continue;
      JobStatus s;
      s.status = Status::Unknown;
      s.forgotten = forgotten;
      s.reason = error;
      result[id] = s;
      continue;
    }
    if (!id.empty()) result[id] = status_from_lsf(text("STAT"), text("EXIT_CODE"), text("EXIT_REASON"));
  }
  return result;
}

std::string parse_bsub_job_id(const std::string& out) {
  static const std::regex submitted("Job <(\\d+)> is submitted");
  std::smatch m;
  return std::regex_search(out, m, submitted) ? m[1].str() : "";
}

std::vector<std::pair<std::string, int>> parse_mcpu_hosts(const std::string& text) {
  std::vector<std::pair<std::string, int>> out;
  std::istringstream in(text);
  std::string host, count;
  while (in >> host >> count) out.emplace_back(host, std::atoi(count.c_str()));
  return out;
}

}  // namespace ssim::launchers::lsf
