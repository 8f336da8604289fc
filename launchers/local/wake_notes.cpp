#include "launchers/local/wake_notes.hpp"

#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

namespace ssim::launchers {

void WakeNotes::add(std::string_view bytes) {
  partial_.append(bytes);
  size_t from = 0;
  for (size_t nl; (nl = partial_.find('\n', from)) != std::string::npos; from = nl + 1) {
    if (nl == from)
      everything_ = true;
    else
      ended_.insert(partial_.substr(from, nl - from));
  }
  partial_.erase(0, from);
  // A line no keeper writes (they write whole paths under PIPE_BUF): not a note, but
  // something woke us.
  if (partial_.size() > PIPE_BUF) partial_.clear(), everything_ = true;
}

bool WakeNotes::take_everything() {
  const bool was = everything_;
  everything_ = false;
  return was;
}

bool WakeNotes::take(const std::string& run_dir) { return ended_.erase(run_dir) > 0; }

void read_wake_fd(int fd, WakeNotes& notes) {
  if (fd < 0) return;
  size_t got = 0;
  char buf[16384];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) {
    notes.add(std::string_view(buf, static_cast<size_t>(n)));
    got += static_cast<size_t>(n);
  }
  // A write of up to PIPE_BUF bytes is refused whole when it does not fit, and a full
  // pipe holds at least half its capacity (a page keeps what a line did not fill, less
  // than a line, and lines are under PIPE_BUF).
  // (Its size asked only then: most reads find nothing, at every tick of the engine.)
  if (got == 0) return;
  const int capacity = ::fcntl(fd, F_GETPIPE_SZ);
  if (capacity > 0 && got >= static_cast<size_t>(capacity) / 2) notes.everything();
}

}  // namespace ssim::launchers
