#include "lib/util/user_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "lib/util/atomic_file.hpp"
#include "lib/util/errors.hpp"

namespace ssim {

void write_user_file(const std::string& path, const std::string& text) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode))
      throw UsageError(path + " is a symbolic link: ssim neither writes through links nor replaces them; "
                              "give the path of the file itself");
    if (S_ISDIR(st.st_mode)) throw UsageError(path + " is a directory: give a file name");
    if (!S_ISREG(st.st_mode)) {
      // A device or a FIFO: written through, as a shell's > would.
      const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
      if (fd < 0) throw EnvironmentError("cannot open " + path + ": " + std::strerror(errno));
      size_t off = 0;
      while (off < text.size()) {
        const ssize_t n = ::write(fd, text.data() + off, text.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          const int err = n < 0 ? errno : EIO;
          ::close(fd);
          throw EnvironmentError("cannot write " + path + ": " + std::strerror(err));
        }
        off += static_cast<size_t>(n);
      }
      if (::close(fd) != 0) throw EnvironmentError("cannot write " + path + ": " + std::strerror(errno));
      return;
    }
  }
  try {
    write_file_atomically(path, text, 0644);
  } catch (const std::exception& e) {
    throw EnvironmentError(e.what());
  }
}

}  // namespace ssim
