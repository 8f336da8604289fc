#include "launchers/pbs/qstat_json.hpp"

#include <csignal>
#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "launchers/batch/state_table.hpp"
#include "lib/util/split.hpp"

namespace ssim::launchers::pbs {
using namespace ssim::launch;

using state::Status;

namespace {
// qstat's job_state letters (OpenPBS reference guide, "Job States").
constexpr StateRow kPbsStates[] = {
    {"R", StateClass::Running}, {"B", StateClass::Running}, {"E", StateClass::Running}, {"Q", StateClass::Pending},
    {"H", StateClass::Pending}, {"W", StateClass::Pending}, {"T", StateClass::Pending}, {"M", StateClass::Pending},
    {"S", StateClass::Pending}, {"U", StateClass::Pending}, {"F", StateClass::Ended},   {"X", StateClass::Ended},
};
}  // namespace

JobStatus status_from_pbs(const std::string& state, std::optional<int> exit_status, const std::string& comment) {
  JobStatus s;
  const auto row = find_state(kPbsStates, state);
  if (!row) {
    s.status = Status::Unknown;
    s.reason = "PBS job_state " + state;
    return s;
  }
  if (row->kind == StateClass::Running) {
    s.status = Status::Running;
    return s;
  }
  if (row->kind == StateClass::Pending) {
    s.status = Status::Pending;
    if (!comment.empty()) s.reason = "pending: " + comment;  // "Can Never Run: ..." says why
    s.never_runs = comment.rfind("Can Never Run", 0) == 0;
    if (s.never_runs) s.never_reason = comment.rfind("Can Never Run: ", 0) == 0 ? comment.substr(15) : comment;
    return s;
  }
  if (comment.find("terminated by") != std::string::npos) {
    s.status = Status::Cancelled;
    s.reason = comment;
    return s;
  }
  if (!exit_status) {
    s.status = Status::Cancelled;
    s.reason = "deleted before it ran" + (comment.empty() ? "" : " (" + comment + ")");
    return s;
  }
  const int e = *exit_status;
  if (e == 0) {
    s.status = Status::Completed;
    s.exit_code = 0;
    return s;
  }
  s.status = Status::Failed;
  if (e > 0 && e <= 128) {
    s.exit_code = e;
    s.reason = "exit code " + std::to_string(e);
  } else if (e > 128 && e < 256) {
    s.signal = e - 128;
  } else if (e > 256) {
    s.signal = e - 256;
  } else if (e == -29) {
    s.reason = "time limit reached (walltime exceeded, Exit_status -29)";
  } else if (e == -27) {
    s.reason = "memory limit exceeded (Exit_status -27)";
  } else {
    s.reason = "PBS could not run the job (Exit_status " + std::to_string(e) + ")";
  }
  return s;
}

std::string hosts_of_exec_host(const std::string& exec_host) {
  std::vector<std::string> hosts;
  for (const auto& part : split(exec_host, '+')) {
    const std::string host = part.substr(0, part.find('/'));
    if (!host.empty() && std::find(hosts.begin(), hosts.end(), host) == hosts.end()) hosts.push_back(host);
  }
  return join(hosts, ",");
}

std::vector<std::pair<std::string, int>> cpus_of_exec_host(const std::string& exec_host) {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& part : split(exec_host, '+')) {
    const std::string host = part.substr(0, part.find('/'));
    if (host.empty()) continue;
    int cpus = 1;
    if (const size_t star = part.find('*'); star != std::string::npos)
      cpus = std::max(1, std::atoi(part.c_str() + star + 1));
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first == host; });
    if (it == out.end())
      out.emplace_back(host, cpus);
    else
      it->second += cpus;
  }
  return out;
}

namespace {
std::optional<nlohmann::json> json_document(const std::string& out) {
  const size_t begin = out.find('{'), end = out.rfind('}');
  if (begin == std::string::npos || end == std::string::npos || end < begin) return std::nullopt;
  auto doc = nlohmann::json::parse(out.substr(begin, end - begin + 1), nullptr, false);
  if (!doc.is_object()) return std::nullopt;
  return doc;
}
}  // namespace

std::string exec_host_of(const std::string& out, const std::string& id) {
  const auto doc = json_document(out);
  if (!doc || !doc->contains("Jobs") || !(*doc)["Jobs"].is_object()) return "";
  for (const auto& [job_id, job] : (*doc)["Jobs"].items()) {
    if (job_id != id && job_id.substr(0, job_id.find('.')) != id.substr(0, id.find('.'))) continue;
    if (job.is_object() && job.contains("exec_host") && job["exec_host"].is_string()) return job["exec_host"];
  }
  return "";
}

bool history_is_off(const std::string& err) {
  return err.find("not configured to maintain job history") != std::string::npos;
}

std::optional<std::map<std::string, JobStatus>> parse_qstat_json(const std::string& out, const std::string& err,
                                                                 const std::vector<std::string>& asked) {
  if (history_is_off(err)) return std::nullopt;  // it listed nothing, whatever runs
  const size_t begin = out.find('{'), end = out.rfind('}');
  if (begin == std::string::npos || end == std::string::npos || end < begin) return std::nullopt;
  const auto doc = nlohmann::json::parse(out.substr(begin, end - begin + 1), nullptr, false);
  if (!doc.is_object()) return std::nullopt;
  std::map<std::string, JobStatus> result;
  if (const auto jobs = doc.find("Jobs"); jobs != doc.end() && jobs->is_object()) {
    for (const auto& [id, job] : jobs->items()) {
      if (!job.is_object()) continue;
      std::optional<int> exit_status;
      if (const auto e = job.find("Exit_status"); e != job.end() && e->is_number_integer()) exit_status = e->get<int>();
      const auto text = [&](const char* key) {
        const auto v = job.find(key);
        return v != job.end() && v->is_string() ? v->get<std::string>() : std::string();
      };
      result[id] = status_from_pbs(text("job_state"), exit_status, text("comment"));
      result[id].nodes = hosts_of_exec_host(text("exec_host"));
    }
  }
  for (const auto& id : asked) {
    if (result.count(id)) continue;
    JobStatus s;
    s.status = Status::Unknown;
    s.forgotten = err.find("Unknown Job Id " + id) != std::string::npos;
    s.reason = s.forgotten ? "qstat: Unknown Job Id " + id : "not listed by qstat";
    result[id] = s;
  }
  return result;
}

}  // namespace ssim::launchers::pbs
