#include "lib/state/lock.hpp"
#include "lib/util/experiment_dir.hpp"

#include <fcntl.h>
#include <dirent.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sstream>

#include "lib/util/atomic_file.hpp"
#include "lib/util/errors.hpp"
#include "lib/util/proc_stat.hpp"

namespace ssim::state {

std::string lock_path(const std::string& experiment_path) { return ssim_dir(experiment_path) + "/lock"; }

void refuse_if_running(const std::string& path) {
  if (auto h = RunLock::holder(path))
    throw UsageError("experiment " + path + " is already running (ssim " + h->role + ", pid " + std::to_string(h->pid) +
                     " on " + h->host + "); use ssim status or ssim stop");
}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<RunLock> RunLock::try_acquire(const std::string& experiment_path, const std::string& role) {
  const std::string path = lock_path(experiment_path);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return std::nullopt;
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return std::nullopt;
  }
  RunLock lock(fd, path);
  lock.set_owner(role);
  return lock;
}

void RunLock::set_owner(const std::string& role) {
  const std::string text =
      std::to_string(getpid()) + " " + host_name() + " " + role + " " + start_ticks(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) == 0 && ::pwrite(fd_, text.data(), text.size(), 0) < 0) {
  }
}

std::optional<LockHolder> RunLock::holder(const std::string& experiment_path) {
  const std::string path = lock_path(experiment_path);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0;
  ::close(fd);  // also drops our shared lock, if we got it
  if (!held) return std::nullopt;
  LockHolder h;
  std::istringstream in(read_file(path).value_or(""));
  in >> h.pid >> h.host >> h.role >> h.ticks;
  return h;
}

bool RunLock::confirmed(const std::string& experiment_path, const LockHolder& h) {
  if (h.pid <= 1 || h.ticks.empty() || start_ticks(h.pid) != h.ticks) return false;
  struct stat lock {};
  if (::stat(lock_path(experiment_path).c_str(), &lock) != 0) return false;
  const std::string fds = "/proc/" + std::to_string(h.pid) + "/fd";
  DIR* dir = ::opendir(fds.c_str());
  if (!dir) return false;
  bool open = false;
  while (dirent* d = ::readdir(dir)) {
    struct stat st {};
    if (d->d_name[0] == '.' || ::stat((fds + "/" + d->d_name).c_str(), &st) != 0) continue;
    if ((open = st.st_dev == lock.st_dev && st.st_ino == lock.st_ino)) break;
  }
  ::closedir(dir);
  return open;
}

}  // namespace ssim::state
