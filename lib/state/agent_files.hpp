#pragma once
// The folder through which ssim and its per-node agents (ssim-supervise --agent) talk,
// one per run inside an allocation: <experiment>/.ssim/agents/<generation>/. The one
// owner of its layout and formats:
//   NODE/jobs               jobs for that node's agent, job handoffs (below) appended one
//                           after another by the run's ssim and read as they come: no file
//                           a member (its agent reads on from where it stopped)
//   NODE/inbox/NAME.cancel  jobs to stop: "TERM\0" or "KILL\0", then "RUN_DIR\0" each
//                           (any ssim process may send one: `ssim stop` in another shell)
//   NODE/alive              rewritten by the agent every second: its heartbeat (mtime)
//   NODE/ended              touched by the agent when a job ends (ssim watches it)
//   NODE/died               written by a keeper that outlived its agent, before it ends
//                           its job: the node is lost now, not after kAgentSilenceSeconds
//   engine                  touched by ssim every second while its run lives
//   stop                    written by ssim when the run ends: agents leave when idle
// Inbox files are written under a dot name and renamed in, so an agent never reads
// half of one; an agent claims a file by renaming it out (only one rename succeeds).
// NUL-separated: no path needs quoting.
#include <optional>
#include <string>
#include <vector>

namespace ssim::state {

inline constexpr double kAgentBeatSeconds = 1;
// An agent silent this long is lost (its node died, or it was killed): its jobs failed.
inline constexpr double kAgentSilenceSeconds = 15;
// With ssim silent this long (killed), an idle agent leaves: its jobs all ended.
inline constexpr double kEngineSilenceSeconds = 60;

// A job handed to a keeper: its run directory, its name, and its job file's text
// (lib/state/job_file.hpp: the command and the whole environment), which travels with it
// instead of lying in the run directory, with where its keeper records it: its launch's
// id and the folder of keeper journals (lib/state/keeper_journal.hpp; none: the status
// file in its run directory). One format wherever jobs are handed over: ssim to the local
// agent (its socket), an agent to its keepers (their pipes), ssim to a node agent (a
// start file): "RUN_DIR\0NAME\0LAUNCH\0JOURNALS\0SIZE\0" then SIZE bytes of the job file.
struct AgentJob {
  std::string run_dir;
  std::string name;
  std::string spec;
  long launch = -1;
  std::string journals;
};
std::string encode_job_handoff(const AgentJob& job);
// The handoff at the front of `buffer`, taken off it; false while incomplete. A damaged
// one (no number where the size goes) is taken off with an empty spec: its keeper says so.
bool take_job_handoff(std::string& buffer, AgentJob& job);

struct AgentCancel {
  bool force = false;  // KILL, else TERM
  std::vector<std::string> run_dirs;
};

std::string agent_node_dir(const std::string& agents_dir, const std::string& node);
std::string agent_inbox(const std::string& agents_dir, const std::string& node);
std::string agent_jobs(const std::string& agents_dir, const std::string& node);

// Jobs appended to a node's stream at once (take_job_handoff reads them one by one).
std::string encode_agent_start(const std::vector<AgentJob>& jobs);
std::string encode_agent_cancel(const AgentCancel& cancel);
std::optional<AgentCancel> decode_agent_cancel(const std::string& text);

}  // namespace ssim::state
