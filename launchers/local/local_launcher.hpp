#pragma once
#include <chrono>
#include <map>
#include <optional>
#include <set>

#include "lib/launch/launcher.hpp"
#include "launchers/local/local_command.hpp"
#include "launchers/local/wake_notes.hpp"
#include "lib/state/agent_files.hpp"

namespace ssim::launchers {
using namespace ssim::launch;

// Runs jobs on this machine under ssim-supervise (apps/ssim-supervise): the program
// leads its own session and process group, and its keeper records it in its journal
// (lib/state/keeper_journal.hpp) when it starts and when it ends. Status is read from
// those records, so it needs no live ssim process. The command and environment of each job travel
// with it to its keeper (a job handoff, lib/state/agent_files.hpp), and are recorded in
// the experiment's launch log (lib/state/launch_log.hpp).
class LocalLauncher : public Launcher {
 public:
  explicit LocalLauncher(std::string supervisor = default_supervisor());
  ~LocalLauncher() override;
  LocalLauncher(const LocalLauncher&) = delete;
  LocalLauncher& operator=(const LocalLauncher&) = delete;
  int wake_fd() const override { return wake_[0]; }
  void take_wake() override;
  // The write end of the wake pipe: a byte there wakes the engine (a relay of other events).
  int wake_write_fd() const { return wake_[1]; }
  // The variable the supervisors read the node's name from (node_name.hpp), inside an
  // allocation whose scheduler names nodes its own way; "" on a machine of its own.
  void set_node_variable(std::string name) { node_variable_ = std::move(name); }
  std::string name() const override { return "local"; }
  bool runs_here() const override { return true; }
  std::vector<std::string> command(const plan::Step& step) const override;
  // This machine, one node: its CPUs (not counted with experiment.oversubscribe) and,
  // when an entity asks for GPUs, its devices.
  std::vector<PoolNode> pool(const plan::Plan& plan) const override;
  bool packs(const plan::Step&) const override { return true; }
  // Through the run's agent (one ssim-supervise --local-agent for the whole run, fed
  // over a socket); a supervisor per tick's batch when SSIM_AGENTS=0 or the agent
  // cannot be started.
  std::vector<JobRef> start(std::span<const LaunchRequest> requests) override;
  std::vector<JobStatus> poll(std::span<const JobRef> jobs) override;
  void cancel(std::span<const JobRef> jobs, bool force) override;
  void end_detached(std::span<const JobRef> jobs) override;

  // ssim-supervise beside the running ssim binary, or $SSIM_SUPERVISE.
  static std::string default_supervisor();

 private:
  // An agent for one batch of jobs (SSIM_AGENTS=0, or the run's agent cannot start).
  void spawn_supervisor(std::span<const LaunchRequest> batch, std::span<const state::AgentJob> jobs,
                        std::vector<JobRef>& refs);
  // The run's agent, started when first needed (again if it died); false: none.
  bool agent_ready();
  // Sends what the agent has not taken yet; false when it is gone.
  bool send_to_agent();
  // Reads what the agent said: the run directories of jobs whose keeper could write no
  // final status (a full disk), into unrecorded_.
  void hear_agent();
  // Starts ssim-supervise with `args` and `input` as its standard input (-1: /dev/null),
  // out of this process's sight but reaped by poll(); its job id. Throws on failure.
  state::JobId spawn_supervisor_process(const std::vector<std::string>& args, int input);
  // Reaps every supervisor this launcher started that has ended, whether or not its
  // jobs are still polled (a job is done once its status file says so, a moment before
  // its supervisor exits): no zombie waits for the end of the run.
  void reap_supervisors();
  std::string supervisor_;
  HostFacts host_;
  std::set<int> supervisors_;             // started here, not reaped yet
  std::map<int, int> ended_supervisors_;  // reaped: pid -> wait status
  std::string node_variable_;
  int wake_[2] = {-1, -1};  // the keepers write a job's run directory when it ends
  // The jobs started here, whose keepers say when they start and end (wake_notes.hpp),
  // with what they were last found to be (not ended): looked at again when a note names
  // them, and all of them at a sweep (a keeper killed before it could say).
  std::map<std::string, JobStatus> quiet_;  // by run directory
  WakeNotes wake_notes_;
  std::chrono::steady_clock::time_point next_sweep_{};
  bool sweep_next_ = false;           // after a cancel: what was killed may not say
  std::set<std::string> unrecorded_;  // run dirs whose job ended with no status written
  struct Agent {
    int pid = 0;
    std::string ticks;
    int socket = -1;     // ssim's end: job handoffs (lib/state/agent_files.hpp)
    std::string unsent;  // what the socket did not take yet
    std::string heard;   // what it said and is not yet a whole "RUN_DIR\0"
  };
  Agent agent_;
  bool agent_wanted_ = true;  // SSIM_AGENTS=0: a supervisor per batch
};

// Each job as its keeper is handed it: its job file (its command and whole environment,
// this process's plus its own), its launch recorded in its launch log and where its keeper
// records it, with what an earlier attempt left (status file, cancel marker) removed.
// `ids`: each job's id when known before the handoff (a node agent's), recorded with its
// launch so that a reader finds it even when ssim dies before it wrote the id down.
// Throws EnvironmentError when the log cannot be written.
std::vector<state::AgentJob> prepare_jobs(std::span<const LaunchRequest> requests,
                                          const std::vector<std::string>& ids = {});

// Whether this run may use agents (the local one, and node agents inside allocations):
// yes unless SSIM_AGENTS=0 (docs/launchers.md).
bool agents_allowed();

// The supervisor's exit code when it could not write a job's final status.
inline constexpr int kSupervisorUnsaved = 75;
// How long detached processes get between SIGTERM and SIGKILL at the end of a run.
inline constexpr std::chrono::seconds kDetachedGrace{2};
// Jobs per supervisor process when many start in the same tick.
inline constexpr size_t kJobsPerSupervisor = 16;

}  // namespace ssim::launchers
