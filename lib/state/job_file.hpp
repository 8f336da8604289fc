#pragma once
// A job file: what a keeper runs for one job, built by the launcher and handed over with
// the job (agent_files.hpp, a job handoff); what ran is recorded in the experiment's
// launch log (launch_log.hpp). The one owner of the format:
//   "ARGC\0arg...\0ENVC\0KEY=VALUE...\0" then settings as NAME\0VALUE\0 pairs:
//   format (its version, kJobFileVersion) and time_limit (seconds of run.time, when set).
// NUL-separated, so no argument or value needs quoting. Unknown settings are skipped by
// readers, so a newer writer's additions do not break an older supervisor.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ssim::state {

inline constexpr int kJobFileVersion = 1;

struct JobFile {
  std::vector<std::string> argv;  // never empty
  std::vector<std::string> env;   // KEY=VALUE, the whole environment the program gets
  long time_limit = 0;            // seconds; 0: none
  int version = kJobFileVersion;
};

std::string encode_job_file(const JobFile& job);
// nullopt for a text that is not a job file (cut short, no program).
std::optional<JobFile> decode_job_file(const std::string& text);
// The whole environment a job gets: `base` ("K=V", the launcher's own), less what
// `additions` names, then `additions` (a later entry of a name wins).
std::vector<std::string> merged_environment(const std::vector<std::string>& base,
                                            const std::vector<std::pair<std::string, std::string>>& additions);
// The value of KEY in the job's environment, or nullopt.
std::optional<std::string> job_variable(const JobFile& job, const std::string& key);

}  // namespace ssim::state
