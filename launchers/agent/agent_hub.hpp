#pragma once
// ssim's side of the per-node agents (docs/launchers.md, "Agents"): the run's agents
// folder (lib/state/agent_files.hpp), jobs and stops sent to a node's agent, ssim's
// heartbeat, the end of the run, and a relay that wakes the engine when an agent says
// a job ended. Starting the agents themselves is the batch launcher's (one launch of
// the scheduler's over the nodes).
#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "lib/launch/launcher.hpp"
#include "lib/state/agent_files.hpp"

namespace ssim::launchers {

class AgentHub {
 public:
  // The agents of generation `generation` of the experiment whose ssim folder is
  // `ssim_dir`, on `nodes`; creates their folders. `wake_fd`: written to when a job ends.
  AgentHub(const std::string& ssim_dir, std::string generation, const std::vector<std::string>& nodes, int wake_fd);
  ~AgentHub();
  AgentHub(const AgentHub&) = delete;
  AgentHub& operator=(const AgentHub&) = delete;

  const std::string& dir() const { return dir_; }
  const std::string& generation() const { return generation_; }
  void send_start(const std::string& node, const std::vector<state::AgentJob>& jobs);
  // ssim is alive (at most one write a second).
  void beat();
  // The run has ended: agents leave once idle.
  void finish();
  const std::vector<std::string>& nodes() const { return nodes_; }
  // Why the agent of `node` is lost ("lost (...)", from agent_lost), or "".
  std::string lost(const std::string& node) const;

 private:
  void relay();
  std::string dir_;
  std::string generation_;
  std::vector<std::string> nodes_;
  int wake_fd_;
  int inotify_fd_ = -1;
  int stop_fd_[2] = {-1, -1};
  std::thread relay_;
  double last_beat_ = 0;
  struct Stream {
    int fd = -1;
    bool flush = false;
  };
  std::map<std::string, Stream> streams_;  // each node's jobs stream, by node
};

// A new generation's name: unique per launch of agents (time, pid, and a count after the
// first launch of this process).
std::string new_agent_generation();

// The agents folder of generation `generation` for a job in `run_dir` (its experiment's
// .ssim folder is found upwards); "" when there is none.
std::string find_agents_dir(const std::string& run_dir, const std::string& generation);

// Asks node `node`'s agent in `agents_dir` to stop jobs (their cancel markers must exist).
void send_agent_cancel(const std::string& agents_dir, const std::string& node, const state::AgentCancel& cancel);

// Why node `node`'s agent in `agents_dir` is lost: silent for kAgentSilenceSeconds,
// gone while it had work, or never started; "" while it is not.
std::string agent_lost(const std::string& agents_dir, const std::string& node);

// The status of a job an agent runs: from its files, or failed when its agent is lost
// (silent for kAgentSilenceSeconds, gone before the job ended, or never started).
// `lost`: agent_lost() of its node, asked once for all its jobs.
launch::JobStatus agent_job_status(const std::string& agents_dir, const std::string& node, const std::string& run_dir,
                                   const std::string& lost);

}  // namespace ssim::launchers
