#include "apps/ssim-supervise/read_all.hpp"

#include <fcntl.h>
#include <unistd.h>

std::string read_all(const std::string& path, bool& ok) {
  std::string out;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ok = fd >= 0;
  if (!ok) return out;
  char buf[65536];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  close(fd);
  return out;
}
