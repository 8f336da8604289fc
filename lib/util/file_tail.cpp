#include "lib/util/file_tail.hpp"

#include <fcntl.h>
#include <unistd.h>

namespace ssim {

std::string last_lines(const std::string& path, int lines, long max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
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
