#pragma once
// How a job ssim started is named (Launcher's JobRef, the manifest's job_id, the start
// journal): one owner of the spellings, so nothing else parses them.
//
//   ""                       never started
//   "?"                      launched, but ssim did not live to learn its id
//   "0"                      its start was refused (its status file says why)
//   "PID@TICKS@HOST"         the local supervisor that keeps it (TICKS, HOST absent in
//                            manifests of ssim 0.1: then this host, pid unchecked)
//   "job:ID"                 a batch job of its own ("sbatch:ID" in ssim 0.1's manifests)
//   "agent:GENERATION:NODE"  run by the node agent of NODE (a node name may hold ':')
#include <string>

namespace ssim::state {

struct JobId {
  enum class Kind { None, Unknown, Refused, Supervisor, Job, Agent };
  Kind kind = Kind::None;
  int pid = 0;        // Supervisor
  std::string ticks;  // Supervisor: the pid's start time (/proc/PID/stat), against reuse
  std::string host;   // Supervisor: where it runs
  std::string job;    // Job: the scheduler's id; Agent: the agents' generation
  std::string node;   // Agent

  static JobId unknown() { return of(Kind::Unknown); }
  static JobId refused() { return of(Kind::Refused); }
  static JobId supervisor(int pid, std::string ticks, std::string host);
  static JobId batch_job(std::string id);
  static JobId agent(std::string generation, std::string node);

  static JobId of(Kind k) {
    JobId id;
    id.kind = k;
    return id;
  }
  bool is(Kind k) const { return kind == k; }
  // Anything that was started (and can be asked about).
  bool started() const { return kind == Kind::Supervisor || kind == Kind::Job || kind == Kind::Agent; }
  std::string str() const;
  // For people: the pid (with its host when `here` is another), the scheduler's job id,
  // "agent on NODE", "?" when never learned, "-" when none.
  std::string label(const std::string& here = "") const;
  bool operator==(const JobId&) const = default;
};

// Reads any spelling above; what matches none is Kind::None.
JobId parse_job_id(const std::string& text);

}  // namespace ssim::state
