#pragma once
// Reading `qstat -x -f -F json [ID]` (OpenPBS / PBS Pro), pure.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lib/launch/launcher.hpp"

namespace ssim::launchers::pbs {
using namespace ssim::launch;

// One job from its qstat attributes: job_state, Exit_status (a JSON number), comment.
// F/X with Exit_status 0 is completed; 1..128 failed with that code; 129..255 and
// 256+n killed by a signal (the shell's 128+n, or PBS's own 256+n); negative values are
// PBS's JOB_EXEC codes (-29: walltime exceeded); finished without Exit_status was
// deleted before it ran, and a comment "terminated by" means someone ran qdel: both
// cancelled.
JobStatus status_from_pbs(const std::string& state, std::optional<int> exit_status, const std::string& comment);

// exec_host ("node1/0*2+node2/0*2") -> "node1,node2": each host once, in order.
std::string hosts_of_exec_host(const std::string& exec_host);

// exec_host -> the CPUs the job holds on each host ("pn1/0*8+pn2/0*8": 8 each; "pn1/2":
// 1), in order. Each chunk's "*N" is its ncpus; a host with several chunks sums them.
std::vector<std::pair<std::string, int>> cpus_of_exec_host(const std::string& exec_host);

// The exec_host of job `id` in a `qstat -f -F json ID` answer, or "".
std::string exec_host_of(const std::string& out, const std::string& id);

// True when qstat says job history is off (the OpenPBS default): `qstat -x` then lists
// no job at all, running ones included, and exits 0.
bool history_is_off(const std::string& err);

// The whole answer: a status for every id in `asked` (Unknown for those qstat does not
// list: PBS knows a job from the moment qsub returns, and forgets it when it ends
// unless job history is on); nullopt when the output holds no JSON at all, or when
// qstat -x says history is off (an answer about no job). Junk around the JSON (older
// servers) is ignored.
std::optional<std::map<std::string, JobStatus>> parse_qstat_json(const std::string& out, const std::string& err,
                                                                 const std::vector<std::string>& asked);

}  // namespace ssim::launchers::pbs
