#pragma once
// <path>/.ssim/lock: held (flock) by the process that runs or monitors the experiment.
// The kernel drops a flock when its holder dies, so a lock left by a killed `ssim run`
// is simply free again: no stale-pid guessing.
#include <optional>
#include <string>

namespace ssim::state {

// <path>/.ssim/lock: held (flock) by the process that runs or changes the experiment.
std::string lock_path(const std::string& experiment_path);

struct LockHolder {
  int pid = 0;
  std::string host;
  std::string role;   // "run" or "monitor"
  std::string ticks;  // the holder's start time (/proc/PID/stat field 22): its pid alone may be reused
};

// Throws UsageError (exit 2) naming the live ssim process that holds the experiment.
void refuse_if_running(const std::string& experiment_path);

class RunLock {
 public:
  RunLock(RunLock&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) { other.fd_ = -1; }
  RunLock& operator=(RunLock&&) = delete;
  ~RunLock();

  // Takes the lock of the experiment at `experiment_path`, or returns nullopt when a
  // live process holds it.
  static std::optional<RunLock> try_acquire(const std::string& experiment_path, const std::string& role);
  // Who holds the lock now, or nullopt when nobody does.
  static std::optional<LockHolder> holder(const std::string& experiment_path);
  // Whether the holder the lock file names really holds it: that process, started at the
  // recorded time, has the lock file open (the kernel's word; the file's text is anyone's
  // to write). The one test before ssim signals a runner.
  static bool confirmed(const std::string& experiment_path, const LockHolder& h);
  // Records the calling process as the holder (after fork, the monitor takes over).
  void set_owner(const std::string& role);

 private:
  RunLock(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_;
  std::string path_;
};

}  // namespace ssim::state
