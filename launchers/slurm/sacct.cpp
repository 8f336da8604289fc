#include "launchers/slurm/sacct.hpp"

#include <regex>
#include <sstream>
#include <vector>

#include "lib/util/split.hpp"

namespace ssim::launchers::slurm {
using namespace ssim::launch;

using state::Status;


JobStatus status_from_slurm(const std::string& state_text, const std::string& exit_code) {
  JobStatus s;
  const std::string state = state_text.substr(0, state_text.find(' '));  // "CANCELLED by 0"
  int code = 0, sig = 0;
  if (const size_t colon = exit_code.find(':'); colon != std::string::npos) {
    code = std::atoi(exit_code.substr(0, colon).c_str());
    sig = std::atoi(exit_code.substr(colon + 1).c_str());
  }
  if (state == "PENDING" || state == "REQUEUED" || state == "SUSPENDED" || state == "RESIZING" ||
      state == "CONFIGURING") {
    s.status = Status::Pending;
  } else if (state == "RUNNING" || state == "COMPLETING" || state == "STAGE_OUT" || state == "SIGNALING") {
    s.status = Status::Running;
  } else if (state == "COMPLETED") {
    s.status = code == 0 && sig == 0 ? Status::Completed : Status::Failed;
    s.exit_code = code;
    if (sig) s.signal = sig;
  } else if (state == "CANCELLED") {
    s.status = Status::Cancelled;
    s.reason = state_text;
    if (sig) s.signal = sig;
  } else if (state == "FAILED") {
    s.status = Status::Failed;
    if (sig) {
      s.signal = sig;
    } else {
      s.exit_code = code;
      s.reason = "exit code " + std::to_string(code);
    }
  } else if (state == "TIMEOUT" || state == "OUT_OF_MEMORY" || state == "NODE_FAIL" || state == "PREEMPTED" ||
             state == "BOOT_FAIL" || state == "DEADLINE") {
    s.status = Status::Failed;
    s.reason = state == "TIMEOUT" ? "time limit reached (TIMEOUT)"
               : state == "OUT_OF_MEMORY" ? "out of memory (OUT_OF_MEMORY)"
               : state == "NODE_FAIL" ? "a node failed (NODE_FAIL)"
                                      : state;
    if (code) s.exit_code = code;
  } else {
    s.status = Status::Unknown;
    s.reason = "Slurm state " + state_text;
  }
  return s;
}

bool reason_never_runs(const std::string& reason) {
  // Pending reasons that no amount of waiting clears: the request breaks a limit of the
  // partition, account or QOS, or asks for features no node has (until an admin acts).
  for (const char* r : {"PartitionNodeLimit", "PartitionTimeLimit", "PartitionConfig", "BadConstraints",
                        "InvalidAccount", "InvalidQOS", "AccountNotAllowed", "QOSNotAllowed"})
    if (reason == r) return true;
  return false;
}

void add_pending_reason(JobStatus& s, const std::string& reason) {
  if (s.status != Status::Pending || reason.empty() || reason == "None") return;
  s.reason = "pending: " + reason;
  s.never_runs = reason_never_runs(reason);
}

std::map<std::string, JobStatus> parse_sacct(const std::string& output) {
  std::map<std::string, JobStatus> out;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto f = split(line, '|');
    if (f.size() < 3) continue;
    JobStatus s = status_from_slurm(f[1], f[2]);
    if (f.size() > 3 && f[3] != "None assigned") s.nodes = f[3];
    if (f.size() > 4) add_pending_reason(s, f[4]);
    out[f[0]] = s;
  }
  return out;
}

std::map<std::string, JobStatus> parse_squeue(const std::string& output) {
  std::map<std::string, JobStatus> out;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    const auto f = split(line, '|');
    if (f.size() < 2 || f[0].empty()) continue;
    JobStatus s = status_from_slurm(f[1], "");
    if (s.status == Status::Completed) s.exit_code = 0;
    if (f.size() > 2) add_pending_reason(s, f[2]);
    out[f[0]] = s;
  }
  return out;
}

std::string parse_salloc_job_id(const std::string& text) {
  static const std::regex granted("Granted job allocation (\\d+)");
  std::smatch m;
  return std::regex_search(text, m, granted) ? m[1].str() : "";
}

}  // namespace ssim::launchers::slurm
