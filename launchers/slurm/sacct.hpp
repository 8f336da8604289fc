#pragma once
// Pure parsers of Slurm's status commands, tested on recorded outputs.
#include <map>
#include <string>

#include "lib/launch/launcher.hpp"

namespace ssim::launchers::slurm {
using namespace ssim::launch;

// The state of one job or step from Slurm's words: "COMPLETED" + "0:0", "FAILED" +
// "3:0", "CANCELLED by 0", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL", ...
JobStatus status_from_slurm(const std::string& state, const std::string& exit_code);

// `sacct --parsable2 --noheader --format=JobID,State,ExitCode[,NodeList[,Reason]]` -> id ("12", "12.0",
// "12.batch") -> status.
std::map<std::string, JobStatus> parse_sacct(const std::string& output);

// A pending job's reason that waiting never clears (PartitionNodeLimit, BadConstraints,
// InvalidAccount, ...): the job can never run as submitted.
bool reason_never_runs(const std::string& reason);
// Sets a pending job's reason ("pending: R") and whether it can never run.
void add_pending_reason(JobStatus& s, const std::string& reason);

// `squeue -h -t all -o '%i|%T|%r'` (no accounting) -> job id -> status. squeue has no
// exit codes: a COMPLETED job is completed, a FAILED one failed without a code.
std::map<std::string, JobStatus> parse_squeue(const std::string& output);

// The job id in salloc's "salloc: Granted job allocation 7" (stderr), or "".
std::string parse_salloc_job_id(const std::string& stderr_text);

}  // namespace ssim::launchers::slurm
