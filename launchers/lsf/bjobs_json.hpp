#pragma once
// Reading `bjobs -o "jobid stat exit_code exit_reason" -json ID...` (IBM Spectrum LSF
// 10.1, and OpenLava forks), pure.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lib/launch/launcher.hpp"

namespace ssim::launchers::lsf {
using namespace ssim::launch;

// PEND/PSUSP/WAIT/PROV pending; RUN/USUSP/SSUSP running (UNKWN too: mbatchd lost the
// host, the job may still run); DONE and POST_DONE completed; EXIT failed with
// EXIT_CODE (128+n: signal n), cancelled when EXIT_REASON says the owner or an admin
// killed it (TERM_OWNER, TERM_ADMIN), with the reason for limits (TERM_RUNLIMIT).
JobStatus status_from_lsf(const std::string& stat, const std::string& exit_code, const std::string& exit_reason);

// A status for every record; a record with an ERROR key ("Job <7> is not found") is
// Unknown. nullopt when the output holds no JSON.
std::optional<std::map<std::string, JobStatus>> parse_bjobs_json(const std::string& out);

// "Job <123> is submitted to queue <normal>." (after any "Cannot connect" lines) -> "123".
std::string parse_bsub_job_id(const std::string& out);

// LSB_MCPU_HOSTS "hostA 2 hostB 1" -> hosts with slots.
std::vector<std::pair<std::string, int>> parse_mcpu_hosts(const std::string& text);

}  // namespace ssim::launchers::lsf
