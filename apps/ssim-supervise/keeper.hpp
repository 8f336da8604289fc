#pragma once
// One job, watched to its end (what an agent's keepers do, one job after another): the
// program its handoff names started as the leader of its own session, its output to
// RUN_DIR/NAME.out and .err, its record in this keeper's journal (or its status file)
// written when it starts and when it ends, run.time enforced, and what it detaches adopted
// (this process is a child subreaper) and ended when asked.
#include <signal.h>

#include <sys/types.h>

#include <string>
#include <vector>

#include "lib/state/agent_files.hpp"

namespace supervise {

// The exit code of a keeper whose final status the disk refused for good.
inline constexpr int kExitUnsaved = 75;

// Watches the job until it and what it detached have ended; returns the exit code.
// `node_env` ("K=V") replaces the job's environment's entries of the same names (an agent's
// view of its node). `waited`: the signals blocked and taken with sigtimedwait.
// `agent`: the node agent that forked this keeper, if one did (pid 0: none). If it dies,
// ssim takes its node for lost and retries the job elsewhere: the keeper says so in the
// agent's folder (state/agent_files.hpp, "died"), then ends the job (SIGTERM) and
// records why, so that the attempt never runs on beside its retry.
struct AgentTie {
  pid_t pid = 0;
  std::string dir;  // the agent's own folder (agents/GENERATION/NODE)
};
int keep_job(const ssim::state::AgentJob& job, const sigset_t& waited, const std::vector<std::string>& node_env = {},
             const AgentTie& agent = {});
// Records that the job could not even be given a keeper.
void fail_to_keep(const std::string& run_dir, const std::string& name, const std::string& message);
// Takes the descriptor ssim passed in SSIM_WAKE_FD (a byte there wakes ssim at a job's end).
void take_wake_fd();
// Tells ssim, through that descriptor, which job started or ended: its run directory.
void wake_ssim(const std::string& run_dir);

}  // namespace supervise
