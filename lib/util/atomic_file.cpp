#include "lib/util/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
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
    throw EnvironmentError("cannot write " + path + ": the file system holding it is full (" + std::strerror(err) +
                           ")");
  throw EnvironmentError("cannot write " + path + ": " + std::strerror(err));
}
}  // namespace

void write_file_directly(const std::string& path, const std::string& text, unsigned mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) cannot_write(path, errno);
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : ENOSPC;
      ::close(fd);
      cannot_write(path, err);
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) cannot_write(path, errno);
}

AtomicFileWriter::AtomicFileWriter(std::string path, unsigned mode)
    : path_(std::move(path)), tmp_(path_ + ".tmp." + std::to_string(getpid())) {
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd_ < 0) cannot_write(path_, errno);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(tmp_.c_str());
}

void AtomicFileWriter::write(std::string_view text) {
  buffer_.append(text);
  if (buffer_.size() >= 256 * 1024) flush();
}

void AtomicFileWriter::flush() {
  size_t off = 0;
  while (off < buffer_.size()) {
    ssize_t w = ::write(fd_, buffer_.data() + off, buffer_.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) cannot_write(path_, w < 0 ? errno : EIO);  // the destructor removes the temporary file
    off += static_cast<size_t>(w);
  }
  buffer_.clear();
}

void AtomicFileWriter::commit() {
  flush();
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {  // a network file system may say only now that it is full
    const int e = errno;
    ::unlink(tmp_.c_str());
    cannot_write(path_, e);
  }
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp_.c_str());
    cannot_write(path_, e);
  }
}

void write_file_atomically(const std::string& path, const std::string& text, unsigned mode) {
  AtomicFileWriter w(path, mode);
  w.write(text);
  w.commit();
}

std::optional<std::string> read_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string out = read_whole(fd);
  ::close(fd);
  return out;
}

std::string read_whole(int fd) {
  // Read in place, into room for the size the file has now (a 40 MB manifest grown by
  // appends was copied over and over); it may still grow while being read.
  struct stat st {};
  const size_t expected = ::fstat(fd, &st) == 0 && st.st_size > 0 ? static_cast<size_t>(st.st_size) : 0;
  std::string out(expected + 1, '\0');
  size_t have = 0;
  while (true) {
    if (have == out.size()) out.resize(out.size() * 2);
    const ssize_t n = ::read(fd, out.data() + have, out.size() - have);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    have += static_cast<size_t>(n);
  }
  out.resize(have);
  return out;
}

}  // namespace ssim
