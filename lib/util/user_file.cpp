#include "lib/util/user_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "lib/util/atomic_file.hpp"
#include "lib/util/errors.hpp"

namespace ssim {

namespace {
// Refuses a link or a directory; true for a device or FIFO (written through).
bool written_through(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return false;
  if (S_ISLNK(st.st_mode))
    throw UsageError(path +
                     " is a symbolic link: ssim neither writes through links nor replaces them; "
                     "give the path of the file itself");
  if (S_ISDIR(st.st_mode)) throw UsageError(path + " is a directory: give a file name");
  return !S_ISREG(st.st_mode);
}

void write_all(int fd, const std::string& path, std::string_view text) {
  size_t off = 0;
  while (off < text.size()) {
    const ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw EnvironmentError("cannot write " + path + ": " + std::strerror(n < 0 ? errno : EIO));
    off += static_cast<size_t>(n);
  }
}
}  // namespace

void write_user_file_streamed(const std::string& path,
                              const std::function<void(const std::function<void(std::string_view)>&)>& produce) {
  if (written_through(path)) {  // a device or a FIFO, as a shell's > would
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) throw EnvironmentError("cannot open " + path + ": " + std::strerror(errno));
    try {
      produce([&](std::string_view piece) { write_all(fd, path, piece); });
    } catch (...) {
      ::close(fd);
      throw;
    }
    if (::close(fd) != 0) throw EnvironmentError("cannot write " + path + ": " + std::strerror(errno));
    return;
  }
  try {
    AtomicFileWriter out(path, 0644);
    produce([&](std::string_view piece) { out.write(piece); });
    out.commit();
  } catch (const UsageError&) {
    throw;
  } catch (const EnvironmentError&) {
    throw;
  } catch (const std::exception& e) {
    throw EnvironmentError(e.what());
  }
}

void write_user_file(const std::string& path, const std::string& text) {
  write_user_file_streamed(path, [&](const std::function<void(std::string_view)>& write) { write(text); });
}

}  // namespace ssim
