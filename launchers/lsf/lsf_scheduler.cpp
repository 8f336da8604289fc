#include "launchers/lsf/lsf_scheduler.hpp"

#include "launchers/batch/output_lines.hpp"
#include "launchers/lsf/bjobs_json.hpp"
#include "launchers/lsf/lsf_script.hpp"
#include "launchers/ranks/rank_command.hpp"

#include <unistd.h>

namespace ssim::launchers::lsf {

// As under PBS, one mpirun (blaunch or ssh reach the nodes). Not on CSM systems, where
// the launch node is no compute node and jsrun resource sets hold their CPUs: members
// there stay jsrun steps.
std::optional<std::vector<std::string>> LsfScheduler::agent_command(const std::string&,
                                                                    const std::vector<std::string>& nodes,
                                                                    const std::vector<std::string>& program) const {
  if (csm_) return std::nullopt;
  return mpirun_agent_command(nodes, program, ::geteuid() == 0);
}
using namespace ssim::launch;

std::optional<Allocation> LsfScheduler::current_allocation(const Getenv& getenv, const ReadText& read) const {
  const char* id = getenv("LSB_JOBID");
  if (!id || !*id) return std::nullopt;
  Allocation a;
  a.job_id = id;
  if (const char* mcpu = getenv("LSB_MCPU_HOSTS"); mcpu && *mcpu) {
    for (const auto& [host, slots] : parse_mcpu_hosts(mcpu)) {
      if (a.slots[host] == 0) a.hosts.push_back(host);
      a.slots[host] += slots;
    }
  } else if (const char* file = getenv("LSB_DJOB_HOSTFILE"); file && *file) {
    a = allocation_from_host_lines(id, read(file).value_or(""));
  }
  // On CSM systems the first host is the launch node, where the job script runs.
  if (csm_ && a.hosts.size() > 1) {
    a.slots.erase(a.hosts.front());
    a.hosts.erase(a.hosts.begin());
  }
  return a;
}

std::string LsfScheduler::render_script(const BatchJob& job) const { return lsf_script(job, csm_); }

SubmitCommand LsfScheduler::submit_command(const std::string& script_path) const {
  return {{"bsub"}, script_path};  // bsub < script: #BSUB lines read whatever lsf.conf says
}

std::string LsfScheduler::job_id_from_submit_output(const CommandResult& r) const {
  return r.exit_code == 0 ? parse_bsub_job_id(r.out) : "";
}

std::vector<std::string> LsfScheduler::status_command(const std::vector<std::string>& ids) const {
  std::vector<std::string> argv = {"bjobs", "-o", "jobid stat exit_code exit_reason", "-json"};
  argv.insert(argv.end(), ids.begin(), ids.end());
  return argv;
}

std::optional<std::map<std::string, JobStatus>> LsfScheduler::parse_status_output(
    const CommandResult& r, const std::vector<std::string>&) const {
  return parse_bjobs_json(r.out);
}

std::vector<std::string> LsfScheduler::cancel_command(const std::vector<std::string>& ids) const {
  std::vector<std::string> argv = {"bkill"};
  argv.insert(argv.end(), ids.begin(), ids.end());
  return argv;
}

bool LsfScheduler::cancel_output_ok(const CommandResult& r) const {
  return r.exit_code == 0 || every_line_matches(r.err, {"already finished", "No matching job found"});
}

}  // namespace ssim::launchers::lsf
