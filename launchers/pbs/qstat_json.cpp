#include "launchers/pbs/qstat_json.hpp"

#include <csignal>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "lib/util/split.hpp"

namespace ssim::launchers::pbs {

using state::Status;

JobStatus status_from_pbs(const std::string& state, std::optional<int> exit_status, const std::string& comment) {
  JobStatus s;
  if (state == "R" || state == "B" || state == "E") {
    s.status = Status::Running;
    return s;
  }
  if (state == "Q" || state == "H" || state == "W" || state == "T" || state == "M" || state == "S" || state == "U") {
    s.status = Status::Pending;
    if (!comment.empty()) s.reason = "pending: " + comment;  // "Can Never Run: ..." says why
    return s;
  }
  if (state != "F" && state != "X") {
    s.status = Status::Unknown;
    s.reason = "PBS job_state " + state;
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
  std::string out;
  for (const auto& h : hosts) out += (out.empty() ? "" : ",") + h;
  return out;
}

std::optional<std::map<std::string, JobStatus>> parse_qstat_json(const std::string& out, const std::string& err,
                                                                 const std::vector<std::string>& asked) {
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
    s.reason = err.find("Unknown Job Id " + id) != std::string::npos ? "qstat: Unknown Job Id " + id
                                                                     : "not listed by qstat";
    result[id] = s;
  }
  return result;
}

}  // namespace ssim::launchers::pbs
