#include "lib/util/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "lib/util/errors.hpp"

namespace ssim {

namespace {
// The environment failed, said as a person would: the file the user knows (not the
// temporary beside it) and the cause, a full file system named as such.
[[noreturn]] void cannot_write(const std::string& path, int err) {
  if (err == ENOSPC || err == EDQUOT)
    throw EnvironmentError("cannot write " + path + ": the file system holding it is full (" + std::strerror(err) + ")");
  throw EnvironmentError("cannot write " + path + ": " + std::strerror(err));
}
}  // namespace

void write_file_atomically(const std::string& path, const std::string& text, unsigned mode) {
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) cannot_write(path, errno);
  size_t off = 0;
  while (off < text.size()) {
    ssize_t w = ::write(fd, text.data() + off, text.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const int e = w < 0 ? errno : EIO;
      ::close(fd);
      ::unlink(tmp.c_str());
      cannot_write(path, e);
    }
    off += static_cast<size_t>(w);
  }
  if (::close(fd) != 0) {  // a network file system may say only now that it is full
    const int e = errno;
    ::unlink(tmp.c_str());
    cannot_write(path, e);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    cannot_write(path, e);
  }
}

std::optional<std::string> read_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string out;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

}  // namespace ssim
