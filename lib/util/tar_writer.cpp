#include "lib/util/tar_writer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace ssim {

namespace {
// width - 1 octal digits, zero-padded, and a NUL, as ustar writes them (callers keep
// `value` within the field).
void octal(char* field, size_t width, uint64_t value) {
  field[width - 1] = '\0';
  for (size_t i = width - 1; i-- > 0; value >>= 3) field[i] = static_cast<char>('0' + (value & 7));
}
}  // namespace

std::string tar_header(const std::string& name, uint64_t size, long mtime, unsigned mode) {
  char h[512];
  std::memset(h, 0, sizeof h);
  std::string prefix, base = name;
  if (name.size() > 100) {  // split at a '/' so that prefix <= 155 and name <= 100
    size_t cut = name.rfind('/', 155);
    while (cut != std::string::npos && name.size() - cut - 1 > 100)
      cut = cut ? name.rfind('/', cut - 1) : std::string::npos;
    if (cut == std::string::npos || cut == 0 || name.size() - cut - 1 > 100)
      throw std::invalid_argument("path too long for a tar archive: " + name);
    prefix = name.substr(0, cut);
    base = name.substr(cut + 1);
  }
  if (size >= (uint64_t{1} << 33)) throw std::invalid_argument("file too large for a tar archive: " + name);
  std::memcpy(h, base.data(), base.size());
  octal(h + 100, 8, mode);
  octal(h + 108, 8, 0);  // uid
  octal(h + 116, 8, 0);  // gid
  octal(h + 124, 12, size);
  octal(h + 136, 12, static_cast<uint64_t>(mtime > 0 ? mtime : 0));
  h[156] = '0';  // a regular file
  std::memcpy(h + 257, "ustar", 6);
  std::memcpy(h + 263, "00", 2);
  std::memcpy(h + 345, prefix.data(), prefix.size());
  std::memset(h + 148, ' ', 8);  // the checksum counts its own field as spaces
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  std::snprintf(h + 148, 8, "%06o", sum);
  h[155] = ' ';
  return std::string(h, sizeof h);
}

void TarWriter::pad(uint64_t size) {
  static const char zeros[512] = {};
  if (size % 512) sink_(std::string_view(zeros, 512 - size % 512));
}

void TarWriter::add_text(const std::string& name, std::string_view text, long mtime) {
  sink_(tar_header(name, text.size(), mtime));
  sink_(text);
  pad(text.size());
}

bool TarWriter::add_file(const std::string& name, const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return false;
  }
  // The size taken now is what goes in: a file still growing is cut there, one that
  // shrank is padded with zeros, so the archive stays well formed.
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  sink_(tar_header(name, size, st.st_mtime));
  std::string buf(1 << 16, '\0');
  uint64_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd, buf.data(), std::min<uint64_t>(buf.size(), size - done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    sink_(std::string_view(buf.data(), static_cast<size_t>(n)));
    done += static_cast<uint64_t>(n);
  }
  ::close(fd);
  static const std::string zeros(512, '\0');
  while (done < size) {
    const uint64_t k = std::min<uint64_t>(zeros.size(), size - done);
    sink_(std::string_view(zeros.data(), k));
    done += k;
  }
  pad(size);
  return true;
}

void TarWriter::finish() {
  static const char zeros[1024] = {};
  sink_(std::string_view(zeros, sizeof zeros));
}

}  // namespace ssim
