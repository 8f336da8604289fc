#include "lib/util/file_tail.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util/atomic_file.hpp"

namespace ssim {

namespace {

// A regular file opened for reading, or -1: a FIFO, device or link planted in a run
// directory must not block or steer its reader (opened without blocking or following,
// then checked).
int open_regular(const std::string& path, bool own_only = false) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
  if (fd < 0) return -1;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (own_only && st.st_uid != ::geteuid())) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

std::optional<std::string> read_regular_file(const std::string& path, long max_bytes, bool own_only) {
  const int fd = open_regular(path, own_only);
  if (fd < 0) return std::nullopt;
  std::string text(static_cast<size_t>(max_bytes) + 1, '\0');
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  if (got > static_cast<size_t>(max_bytes)) return std::nullopt;
  text.resize(got);
  return text;
}

std::optional<std::string> read_run_file(const std::string& path) {
  const int fd = open_regular(path, true);
  if (fd < 0) return std::nullopt;
  std::string out = read_whole(fd);
  ::close(fd);
  return out;
}

std::string last_lines(const std::string& path, int lines, long max_bytes) {
  const int fd = open_regular(path, true);
  if (fd < 0) return "";
  const off_t size = ::lseek(fd, 0, SEEK_END);
  const off_t from = size > max_bytes ? size - max_bytes : 0;
  std::string text(size > from ? static_cast<size_t>(size - from) : 0, '\0');
  const ssize_t n = text.empty() ? 0 : ::pread(fd, text.data(), text.size(), from);
  ::close(fd);
  text.resize(n > 0 ? static_cast<size_t>(n) : 0);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  size_t cut = text.size();
  for (int i = 0; i < lines; ++i) {
    if (cut == 0) return text;
    cut = text.rfind('\n', cut - 1);
    if (cut == std::string::npos) return text;
  }
  return text.substr(cut + 1);
}

}  // namespace ssim
