#include "lib/client/metrics_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace ssim::metrics {

// The metrics file, never through a link another user planted (a shared working folder
// outside a run): a link of one's own is followed, any other refused, and a link that
// appears after the look is not followed either. -1 when refused or not opened.
int open_for_append(const std::string& path) {
  const int flags = O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC;
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
    return st.st_uid == ::getuid() ? ::open(path.c_str(), flags, 0644) : -1;
  return ::open(path.c_str(), flags | O_NOFOLLOW, 0644);
}

// One write of whole lines, appended under an exclusive flock of the file. ssim thins a
// file that grew past its bound by renaming a copy over it under the same lock
// (lib/state/metrics_bound.hpp): once locked, a file the path no longer names is the
// old one, and the lines go to the new one instead. A write the disk refuses half-way is
// cut back to where it began (never a torn line); false then.
bool append_locked(const std::string& path, const std::string& text) {
  while (true) {  // another turn only when ssim replaced the file meanwhile (rare)
    const int fd = open_for_append(path);
    if (fd < 0) return false;
    struct stat locked {
    }, named{};
    const bool same = ::flock(fd, LOCK_EX) == 0 && ::fstat(fd, &locked) == 0 && ::stat(path.c_str(), &named) == 0 &&
                      locked.st_ino == named.st_ino;
    bool written = true;
    if (same) {
      for (size_t done = 0; done < text.size();) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n <= 0 && errno != EINTR) {
          written = false;
          if (::ftruncate(fd, locked.st_size) != 0) {
          }
          break;
        }
        if (n > 0) done += static_cast<size_t>(n);
      }
    }
    ::close(fd);  // and the lock with it
    if (same) return written;
  }
}

}  // namespace ssim::metrics
