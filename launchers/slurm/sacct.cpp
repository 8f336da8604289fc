#include "launchers/slurm/sacct.hpp"

#include <regex>
#include <sstream>
#include <vector>

#include "launchers/batch/state_table.hpp"
#include "lib/util/split.hpp"

namespace ssim::launchers::slurm {
using namespace ssim::launch;

using state::Status;

namespace {
// sacct's and squeue's states (slurm.schedmd.com/sacct.html, JOB STATE CODES).
constexpr StateRow kSlurmStates[] = {
    {"PENDING", StateClass::Pending},
    {"REQUEUED", StateClass::Pending},
    {"SUSPENDED", StateClass::Pending},
    {"RESIZING", StateClass::Pending},
    {"CONFIGURING", StateClass::Pending},
    {"RUNNING", StateClass::Running},
    {"COMPLETING", StateClass::Running},
    {"STAGE_OUT", StateClass::Running},
    {"SIGNALING", StateClass::Running},
    {"COMPLETED", StateClass::Ended},
    {"FAILED", StateClass::Ended},
    {"CANCELLED", StateClass::Cancelled},
    {"TIMEOUT", StateClass::Failed, "time limit reached (TIMEOUT)"},
    {"OUT_OF_MEMORY", StateClass::Failed, "out of memory (OUT_OF_MEMORY)"},
    {"NODE_FAIL", StateClass::Failed, "a node failed (NODE_FAIL)"},
    {"PREEMPTED", StateClass::Failed, "PREEMPTED"},
    {"BOOT_FAIL", StateClass::Failed, "BOOT_FAIL"},
    {"DEADLINE", StateClass::Failed, "DEADLINE"},
};
}  // namespace

JobStatus status_from_slurm(const std::string& state_text, const std::string& exit_code) {
  JobStatus s;
  const std::string state = state_text.substr(0, state_text.find(' '));  // "CANCELLED by 0"
  int code = 0, sig = 0;
  if (const size_t colon = exit_code.find(':'); colon != std::string::npos) {
    code = std::atoi(exit_code.substr(0, colon).c_str());
    sig = std::atoi(exit_code.substr(colon + 1).c_str());
  }
  const auto row = find_state(kSlurmStates, state);
  if (!row) {
    s.status = Status::Unknown;
    s.reason = "Slurm state " + state_text;
    return s;
  }
  switch (row->kind) {
    case StateClass::Pending:
      s.status = Status::Pending;
      break;
    case StateClass::Running:
      s.status = Status::Running;
      break;
    case StateClass::Cancelled:
      s.status = Status::Cancelled;
      s.reason = state_text;  // "CANCELLED by 0": who
      if (sig) s.signal = sig;
      break;
    case StateClass::Failed:
      s.status = Status::Failed;
      s.reason = std::string(row->reason);
      if (code) s.exit_code = code;
      break;
    case StateClass::Ended:
      if (state == "COMPLETED") {  // COMPLETED with a non-zero code is a failure all the same
        s.status = code == 0 && sig == 0 ? Status::Completed : Status::Failed;
        s.exit_code = code;
        if (sig) s.signal = sig;
      } else if (sig) {
        s.status = Status::Failed;
        s.signal = sig;
      } else {
        s.status = Status::Failed;
        s.exit_code = code;
        s.reason = "exit code " + std::to_string(code);
      }
      break;
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
  if (s.never_runs) s.never_reason = reason;
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
