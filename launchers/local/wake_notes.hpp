#pragma once
// What the keepers write to the local launcher's wake pipe when a job starts running and
// when it ends: its run directory and a newline, in one write
// (apps/ssim-supervise/keeper.cpp). The launcher then reads the status files of those jobs
// alone, and every job's only now and then (a keeper killed before it could say): reading
// every running job's status file at every tick cost the engine in proportion to what
// runs, not to what changes (500 members running at once: three times the CPU).
#include <set>
#include <string>
#include <string_view>

namespace ssim::launchers {

class WakeNotes {
 public:
  // Bytes as read from the pipe, split anywhere.
  void add(std::string_view bytes);
  // Something ended that the notes may not name: a bare newline (a path too long for
  // one write, a relay of node agents' ends), or writes a full pipe refused.
  void everything() { everything_ = true; }

  // Whether every job is to be looked at (once: the flag is cleared).
  bool take_everything();
  // Whether a note named the job in `run_dir` since it was last taken (then cleared).
  bool take(const std::string& run_dir);
  // Drops the notes of jobs `stale` says are no longer watched (ended, or not ours).
  template <typename Stale>
  void forget_if(Stale stale) {
    std::erase_if(ended_, [&](const std::string& run_dir) { return stale(run_dir); });
  }
  size_t size() const { return ended_.size(); }

 private:
  std::string partial_;
  std::set<std::string> ended_;  // run directories
  bool everything_ = false;
};

// Reads what `fd` (non-blocking) holds now into `notes`. A read that found the pipe
// half full or more may have missed writes it refused: everything, then.
void read_wake_fd(int fd, WakeNotes& notes);

}  // namespace ssim::launchers
