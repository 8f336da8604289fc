#include "lib/util/random_hex.hpp"

#include <fcntl.h>
#include <unistd.h>

#include "lib/util/errors.hpp"

namespace ssim {

std::string random_hex(size_t bytes, const std::string& what) {
  std::string raw(bytes, '\0');
  const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  const bool ok = fd >= 0 && ::read(fd, raw.data(), bytes) == static_cast<ssize_t>(bytes);
  if (fd >= 0) ::close(fd);
  if (!ok) throw EnvironmentError("cannot read /dev/urandom for " + what);
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : raw) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

}  // namespace ssim
