#include "apps/ssim-supervise/common.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

#include "apps/ssim-supervise/node_name.hpp"
#include "apps/ssim-supervise/read_all.hpp"

namespace supervise {

volatile sig_atomic_t g_forward = 0;

double now() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec / 1e9;
}

// Field 22 of /proc/self/stat: lets readers tell this process from a later one that
// reuses its pid.
std::string start_ticks(const std::string& pid) {
  bool ok = false;
  const std::string stat = read_all("/proc/" + pid + "/stat", ok);
  size_t p = stat.rfind(')');
  if (p == std::string::npos) return "0";
  int field = 2;
  for (; p < stat.size() && field < 22; ++p)
    if (stat[p] == ' ') ++field;
  return stat.substr(p, stat.find(' ', p) - p);
}

// Write, check, then rename: a full disk or an I/O error leaves the previous file as it
// was (never an empty or cut one in its place). write() reports a full local disk and
// close() the errors a network file system defers; no fsync: this is about full disks,
// not power loss, and 2,000 of them would slow a 1,000-member ensemble down. Returns
// false when the new text could not be recorded.
bool write_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  size_t off = 0;
  while (off < text.size()) {
    ssize_t w = write(fd, text.data() + off, text.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    off += static_cast<size_t>(w);
  }
  struct stat st {};
  const bool ok = off == text.size() && fstat(fd, &st) == 0 && st.st_size == static_cast<off_t>(text.size());
  if (close(fd) != 0 || !ok || rename(tmp.c_str(), path.c_str()) != 0) {
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

// A file that does not exist yet, written in place: no temporary and no rename (on ext4
// each is a journaled change, and a member's first status is written once per job).
// A reader that comes while it is written finds a cut text, which the status file's
// reader takes for no file. One that exists already is replaced as write_atomically does.
bool write_new(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return errno == EEXIST && write_atomically(path, text);
  size_t off = 0;
  while (off < text.size()) {
    const ssize_t w = write(fd, text.data() + off, text.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    off += static_cast<size_t>(w);
  }
  if (close(fd) != 0 || off != text.size()) {
    unlink(path.c_str());
    return false;
  }
  return true;
}

// The new text over the old, in the same inode: no temporary and no rename. A rename
// over the old file frees an inode per job, and on ext4 every later file creation in
// that block group then steps over each recently freed inode: the cost per member of a
// large ensemble grew with its size. Padded with spaces to the old length, so nothing is
// truncated: a reader finds the old text, the new one, or (while it is copied in) a cut
// one, which the status file's reader reads again. Within the block the old text holds,
// a full disk has nothing to refuse. Where a reader on another host may keep the old
// text (a network file system's cache), write_atomically is the one to use.
bool rewrite_in_place(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return write_atomically(path, text);
  struct stat st {};
  std::string padded = text;
  if (fstat(fd, &st) == 0 && st.st_size > static_cast<off_t>(padded.size()))
    padded.insert(padded.empty() || padded.back() != '\n' ? padded.size() : padded.size() - 1,
                  static_cast<size_t>(st.st_size) - padded.size(), ' ');
  size_t off = 0;
  while (off < padded.size()) {
    const ssize_t w = pwrite(fd, padded.data() + off, padded.size() - off, static_cast<off_t>(off));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    off += static_cast<size_t>(w);
  }
  const bool ok = close(fd) == 0 && off == padded.size();
  return ok || write_atomically(path, text);
}

// Who writes the status file, and on which node the job runs (the scheduler's name for
// it, node_name.hpp): recorded with the outcome, so ssim knows where a job ran even when
// the scheduler's accounting lags.
ssim::state::StatusFile identity() {
  ssim::state::StatusFile me;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  me.node = node_name();
  me.host = host;  // whose process table the pids are in (a login node's is another)
  me.supervisor_pid = getpid();
  me.supervisor_start_ticks = start_ticks();
  return me;
}

void on_signal(int sig) { g_forward = sig; }

}  // namespace supervise
