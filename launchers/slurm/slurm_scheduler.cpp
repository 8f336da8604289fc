#include "launchers/slurm/slurm_scheduler.hpp"
#include "launchers/placement/allocation.hpp"
#include "lib/util/split.hpp"

#include "launchers/slurm/slurm_mpirun.hpp"

#include "launchers/batch/output_lines.hpp"
#include "launchers/slurm/hostlist.hpp"
#include "launchers/slurm/sacct.hpp"
#include "launchers/slurm/sbatch_script.hpp"

#include <cctype>
#include <sstream>
#include <stdexcept>

#include "lib/util/errors.hpp"

namespace ssim::launchers::slurm {
using namespace ssim::launch;

MpirunNodes SlurmScheduler::mpirun_nodes() const { return slurm_mpirun_nodes; }

// One task per node, overlapping every other step (it holds no CPUs of its own: the
// jobs it starts are packed by ssim), and not killed with the job when one task ends.
std::optional<std::vector<std::string>> SlurmScheduler::agent_command(const std::string& job_id,
                                                                      const std::vector<std::string>& nodes,
                                                                      const std::vector<std::string>& program) const {
  std::vector<std::string> argv = {"srun"};
  if (!job_id.empty()) argv.push_back("--jobid=" + job_id);
  const std::string n = std::to_string(nodes.size());
  argv.insert(argv.end(), {"--job-name=ssim-agents", "--nodelist=" + join_hosts(nodes), "--nodes=" + n, "--ntasks=" + n,
                           "--ntasks-per-node=1", "--overlap", "--mem=0", "--kill-on-bad-exit=0", "--mpi=none"});
  argv.insert(argv.end(), program.begin(), program.end());
  return argv;
}

std::vector<std::string> SlurmScheduler::agent_node_variables() const {
  return {"SLURMD_NODENAME", "SLURM_TOPOLOGY_ADDR", "SLURM_STEP_ID", "SLURM_STEPID", "SLURM_CPUS_ON_NODE"};
}

plan::Env SlurmScheduler::agent_task_env() const {
  return {{"SLURM_PROCID", "0"}, {"SLURM_LOCALID", "0"},        {"SLURM_NODEID", "0"},        {"SLURM_NTASKS", "1"},
          {"SLURM_NPROCS", "1"}, {"SLURM_STEP_NUM_TASKS", "1"}, {"SLURM_STEP_NUM_NODES", "1"}};
}

namespace {
// A node list Slurm gave that cannot be read is the environment failing (exit 3).
std::vector<std::string> hosts_of(const std::string& list, const std::string& where) {
  try {
    return expand_hostlist(list);
  } catch (const std::invalid_argument& e) {
    throw EnvironmentError(where + " cannot be read: " + e.what());
  }
}
}  // namespace

std::optional<Allocation> SlurmScheduler::current_allocation(const Getenv& getenv, const ReadText&) const {
  const char* id = getenv("SLURM_JOB_ID");
  if (!id || !*id) return std::nullopt;
  const char* nodes = getenv("SLURM_JOB_NODELIST");
  if (!nodes) nodes = getenv("SLURM_NODELIST");
  Allocation a{id, nodes ? hosts_of(nodes, "SLURM_JOB_NODELIST") : std::vector<std::string>{}, {}};
  // The CPUs the job has on each node, in node-list order ("32(x2),16").
  if (const char* cpus = getenv("SLURM_JOB_CPUS_PER_NODE")) {
    try {
      const auto counts = expand_counts(cpus);
      if (counts.size() == a.hosts.size())
        for (size_t i = 0; i < counts.size(); ++i) a.slots[a.hosts[i]] = counts[i];
    } catch (const std::invalid_argument&) {
      // not counted: packed steps are spread instead
    }
  }
  return a;
}

std::string SlurmScheduler::render_script(const BatchJob& job) const { return sbatch_script(job); }

SubmitCommand SlurmScheduler::submit_command(const std::string& script_path) const {
  return {{"sbatch", "--parsable", script_path}, ""};
}

std::string SlurmScheduler::job_id_from_submit_output(const CommandResult& r) const {
  // --parsable: "ID" or "ID;cluster".
  if (r.exit_code != 0) return "";
  const std::string line = first_line(r.out);
  return line.substr(0, line.find(';'));
}

std::vector<std::string> SlurmScheduler::status_command(const std::vector<std::string>& ids) const {
  const std::string list = join(ids, ",");
  // Without accounting, squeue -t all knows jobs for MinJobAge; steps end with srun.
  if (accounting_off_) return {"squeue", "-h", "-t", "all", "-j", list, "-o", "%i|%T|%r"};
  return {"sacct", "--parsable2", "--noheader", "--format=JobID,State,ExitCode,NodeList,Reason", "-j", list};
}

std::optional<std::map<std::string, JobStatus>> SlurmScheduler::parse_status_output(
    const CommandResult& r, const std::vector<std::string>&) const {
  if (r.exit_code != 0) return std::nullopt;
  return accounting_off_ ? parse_squeue(r.out) : parse_sacct(r.out);
}

bool SlurmScheduler::switch_status_source(const CommandResult& r) {
  if (accounting_off_ || r.err.find("accounting storage is disabled") == std::string::npos) return false;
  accounting_off_ = true;
  return true;
}

std::vector<std::string> SlurmScheduler::cancel_command(const std::vector<std::string>& ids) const {
  std::vector<std::string> argv = {"scancel"};
  argv.insert(argv.end(), ids.begin(), ids.end());
  return argv;
}

bool SlurmScheduler::cancel_output_ok(const CommandResult& r) const {
  // scancel of a job that already ended: "error: Kill job error on job id N: Job/step
  // already completing or completed" (or "Invalid job id specified" once purged).
  return r.exit_code == 0 || r.err.find("already completing or completed") != std::string::npos ||
         r.err.find("Invalid job id") != std::string::npos;
}

std::vector<std::string> SlurmScheduler::allocation_command(const std::string& name, const spec::BatchSettings& s,
                                                            int nodes) const {
  // Whole nodes: ssim places steps node by node (options: {oversubscribe: ""} etc. still apply).
  std::vector<std::string> argv = {"salloc", "--no-shell", "--exclusive", "--job-name=ssim-" + name,
                                   "--nodes=" + std::to_string(s.nodes.value_or(nodes))};
  if (!s.time.empty()) argv.push_back("--time=" + s.time);
  if (!s.account.empty()) argv.push_back("--account=" + s.account);
  if (!s.queue.empty()) argv.push_back("--partition=" + s.queue);
  for (const auto& [k, v] : s.options) argv.push_back(v.value.empty() ? "--" + k : "--" + k + "=" + v.value);
  return argv;
}

std::string SlurmScheduler::allocation_id_from_output(const CommandResult& r) const {
  return r.exit_code == 0 ? parse_salloc_job_id(r.err + r.out) : "";
}

std::vector<std::string> SlurmScheduler::allocation_hosts_command(const std::string& id) const {
  return {"squeue", "-h", "-j", id, "-o", "%N|%C"};
}

// "n[1-4]|16": the nodes and the job's CPUs. ssim asks for whole nodes (salloc
// --exclusive), so on a partition of equal nodes each has CPUs / nodes.
Allocation SlurmScheduler::parse_allocation(const std::string& id, const CommandResult& r) const {
  Allocation a{id, {}, {}};
  const std::string line = first_line(r.out);
  if (r.exit_code != 0 || line.empty()) return a;
  const size_t bar = line.find('|');
  a.hosts = hosts_of(line.substr(0, bar), "squeue's node list");
  if (bar != std::string::npos && !a.hosts.empty()) {
    try {
      const int cpus = std::stoi(line.substr(bar + 1)) / static_cast<int>(a.hosts.size());
      if (cpus > 0)
        for (const auto& h : a.hosts) a.slots[h] = cpus;
    } catch (const std::exception&) {
    }
  }
  return a;
}

std::optional<std::vector<std::string>> SlurmScheduler::cpus_per_node_command(const spec::BatchSettings& s) const {
  std::vector<std::string> argv = {"sinfo", "--noheader", "-o", "%c"};
  if (!s.queue.empty()) argv.push_back("--partition=" + s.queue);
  return argv;
}

std::vector<std::string> SlurmScheduler::node_state_command(const std::vector<std::string>& nodes) const {
  std::string list;
  for (const auto& n : nodes) list += (list.empty() ? "" : ",") + n;
  return {"sinfo", "--noheader", "--Node", "--nodes=" + list, "-o", "%N|%t|%E"};
}

// "n2|drng|bad dimm": a node per line, its compact state (drain, drng: draining with jobs
// on it, down, fail, failg; a suffix such as * for not responding) and the reason given.
std::map<std::string, std::string> SlurmScheduler::parse_out_of_use(const CommandResult& r) const {
  std::map<std::string, std::string> out;
  if (r.exit_code != 0) return out;
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line)) {
    const size_t a = line.find('|'), b = line.find('|', a == std::string::npos ? a : a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string node = line.substr(0, a), reason = line.substr(b + 1);
    std::string state = line.substr(a + 1, b - a - 1);
    while (!state.empty() && !std::isalpha(static_cast<unsigned char>(state.back()))) state.pop_back();
    const char* what = state == "drain" || state == "drng" || state == "drained" || state == "draining" ? "drained"
                       : state == "down"                                                                ? "down"
                       : state == "fail" || state == "failg"                                            ? "failing"
                                                                                                        : nullptr;
    if (!what || node.empty()) continue;
    out[node] = std::string(what) + " by slurm" + (reason.empty() || reason == "none" ? "" : " (" + reason + ")");
  }
  return out;
}

// One line per group of nodes with the same CPUs; the smallest is what every node has.
int SlurmScheduler::parse_cpus_per_node(const CommandResult& r) const {
  if (r.exit_code != 0) return 0;
  int least = 0;
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line)) {
    try {
      const int c = std::stoi(line);
      if (c > 0 && (least == 0 || c < least)) least = c;
    } catch (const std::exception&) {
    }
  }
  return least;
}

}  // namespace ssim::launchers::slurm
