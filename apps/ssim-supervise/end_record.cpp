#include "apps/ssim-supervise/end_record.hpp"

#include <sys/wait.h>

namespace supervise {

ssim::state::StatusFile end_record(const ssim::state::StatusFile& me, const Ending& ending, int wait_status,
                                   double end) {
  ssim::state::StatusFile st = me;
  st.error = ending.agent_died;
  st.agent_lost = !ending.agent_died.empty();
  st.start = ending.start;
  st.exited = true;
  st.time_limit_reached = ending.timed_out;
  st.pid = ending.pid;
  st.end = end;
  if (WIFSIGNALED(wait_status))
    st.signal = WTERMSIG(wait_status);
  else
    st.exit_code = WEXITSTATUS(wait_status);
  return st;
}

}  // namespace supervise
