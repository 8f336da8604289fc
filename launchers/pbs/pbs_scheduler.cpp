#include "launchers/pbs/pbs_scheduler.hpp"

#include "launchers/batch/output_lines.hpp"
#include "launchers/pbs/pbs_script.hpp"
#include "launchers/pbs/qstat_json.hpp"
#include "launchers/pbs/pbsnodes.hpp"
#include "launchers/ranks/rank_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace ssim::launchers::pbs {

// PBS tracks no steps: the agents are one mpirun (TM or ssh reach the nodes, as for any
// MPI job), supervised on ssim's node like every launch command.
std::optional<std::vector<std::string>> PbsScheduler::agent_command(const std::string&,
                                                                    const std::vector<std::string>& nodes,
                                                                    const std::vector<std::string>& program) const {
  return mpirun_agent_command(nodes, program, ::geteuid() == 0);
}
using namespace ssim::launch;

std::optional<Allocation> PbsScheduler::current_allocation(const Getenv& getenv, const ReadText& read) const {
  const char* id = getenv("PBS_JOBID");
  if (!id || !*id) return std::nullopt;
  const char* nodefile = getenv("PBS_NODEFILE");
  const auto text = nodefile && *nodefile ? read(nodefile) : std::nullopt;
  Allocation a = allocation_from_host_lines(id, text.value_or(""));
  // PBS_NODEFILE has a line per MPI process (mpiprocs, 1 unless asked), not per CPU:
  // select=2:ncpus=8 writes one line per host. NCPUS is a chunk's CPUs; exec_host, when
  // it can be asked (refine_allocation), says each host's exactly.
  if (const char* n = getenv("NCPUS"); n && std::atoi(n) > 0)
    for (const auto& h : a.hosts) a.slots[h] = std::max(a.slots[h], std::atoi(n));
  return a;
}

std::optional<std::vector<std::string>> PbsScheduler::allocation_detail_command(const Allocation& a) const {
  if (a.job_id.empty() || a.hosts.empty()) return std::nullopt;
  return std::vector<std::string>{"qstat", "-f", "-F", "json", a.job_id};  // running: no -x needed
}

void PbsScheduler::refine_allocation(Allocation& a, const CommandResult& r) const {
  if (r.exit_code != 0) return;
  for (const auto& [host, cpus] : cpus_of_exec_host(exec_host_of(r.out, a.job_id))) {
    if (std::find(a.hosts.begin(), a.hosts.end(), host) == a.hosts.end()) continue;  // vnode names: keep the file's
    a.slots[host] = std::max(a.slots[host], cpus);
  }
}

std::optional<std::vector<std::string>> PbsScheduler::cpus_per_node_command(const spec::BatchSettings&) const {
  return std::vector<std::string>{"pbsnodes", "-a"};
}

int PbsScheduler::parse_cpus_per_node(const CommandResult& r) const { return smallest_node_cpus(r.out); }

std::string PbsScheduler::render_script(const BatchJob& job) const { return pbs_script(job); }

SubmitCommand PbsScheduler::submit_command(const std::string& script_path) const {
  // -f: no background qsub daemon (it would keep ssim's inherited descriptors open).
  return {{"qsub", "-f", script_path}, ""};
}

std::string PbsScheduler::job_id_from_submit_output(const CommandResult& r) const {
  if (r.exit_code != 0) return "";
  return first_line(r.out);  // "<seq>.<server>", kept whole
}

std::vector<std::string> PbsScheduler::status_command(const std::vector<std::string>& ids) const {
  // With several ids, OpenPBS's -F json prints only the first job (openpbs#2672, seen on
  // 23.06.06): ask for every job and keep ours, still one call.
  std::vector<std::string> argv = {"qstat"};
  if (history_) argv.push_back("-x");
  argv.insert(argv.end(), {"-f", "-F", "json"});
  if (ids.size() == 1) argv.push_back(ids[0]);
  return argv;
}

bool PbsScheduler::switch_status_source(const CommandResult& r) {
  if (!history_ || !history_is_off(r.err)) return false;
  history_ = false;
  return true;
}

std::optional<std::map<std::string, JobStatus>> PbsScheduler::parse_status_output(
    const CommandResult& r, const std::vector<std::string>& ids) const {
  return parse_qstat_json(r.out, r.err, ids);
}

std::vector<std::string> PbsScheduler::cancel_command(const std::vector<std::string>& ids) const {
  std::vector<std::string> argv = {"qdel"};
  argv.insert(argv.end(), ids.begin(), ids.end());
  return argv;
}

bool PbsScheduler::cancel_output_ok(const CommandResult& r) const {
  return r.exit_code == 0 || (r.exit_code > 0 && every_line_matches(r.err, {"Job has finished", "Unknown Job Id"}));
}

}  // namespace ssim::launchers::pbs
