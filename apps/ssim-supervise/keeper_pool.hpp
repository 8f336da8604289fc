#pragma once
// Keepers that keep one job after another, for the local agent and the node agents. A
// keeper is forked for a job; once that job (and what it detached) ended, it says
// "PID\n" on the pool's idle pipe and waits on a pipe of its own for the next job
// handoff (lib/state/agent_files.hpp): a fork and an exit saved per member. A keeper whose pipe is closed
// leaves once idle; idle, it waits with every signal unblocked, so an outside SIGTERM
// (which its agent passes on) ends it there and then.
#include <signal.h>
#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "apps/ssim-supervise/keeper.hpp"

namespace supervise {

struct PooledKeeper {
  int jobs = -1;  // write end of its job pipe; -1 once closed (it leaves when idle)
  bool busy = true;
  std::string run_dir;  // of the job it keeps, or kept last
};

class KeeperPool {
 public:
  // `waited`: the signals keepers take with sigtimedwait; `node_env` and `tie`: what each
  // job is kept with (keep_job's).
  KeeperPool(const sigset_t& waited, std::vector<std::string> node_env = {}, AgentTie tie = {});
  KeeperPool(const KeeperPool&) = delete;
  KeeperPool& operator=(const KeeperPool&) = delete;
  // False when its idle pipe could not be made.
  bool ready() const { return idle_[0] >= 0; }
  int idle_fd() const { return idle_[0]; }
  // Hands the job to an idle keeper, or forks one that holds none of `not_for_keepers`
  // (descriptors whose end others must see); records the job as not kept when neither
  // can be done.
  void start(const ssim::state::AgentJob& job, const std::vector<int>& not_for_keepers);
  // Takes what keepers said on the idle pipe: true when some job ended.
  bool read_idle();
  // A keeper that exited leaves the pool: its entry, or nullopt when it was not one.
  std::optional<PooledKeeper> take_exited(pid_t pid);
  bool any_busy() const;
  size_t busy_count() const;
  bool empty() const { return keepers_.empty(); }
  // No job will come: idle keepers leave now, busy ones after their job. A stopped one
  // (SIGSTOP, a terminal's Ctrl-Z) is continued, or it would stay for ever.
  void close_pipes();
  void signal_all(int sig) const;

 private:
  const sigset_t waited_;
  const std::vector<std::string> node_env_;
  const AgentTie tie_;
  std::map<pid_t, PooledKeeper> keepers_;
  int idle_[2] = {-1, -1};
  std::string idle_said_;  // what was read of the idle pipe and is not yet a whole line
};

bool write_all(int fd, const std::string& text);

}  // namespace supervise
