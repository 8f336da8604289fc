#include "lib/client/resp_request.hpp"

#include <sys/socket.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace ssim::resp {

namespace {
constexpr size_t kRead = 1 << 18;
constexpr int64_t kMaxArguments = 1 << 20;
constexpr int64_t kMaxBulk = int64_t{1} << 34;  // 16 GiB: a tensor, never a length gone wrong

// A decimal at s[0..n) (no sign but '-'), or -2 when it is not one.
int64_t decimal(const char* s, size_t n) {
  if (n == 0 || n > 18) return -2;
  int64_t v = 0;
  size_t i = 0;
  const bool negative = s[0] == '-';
  if (negative) ++i;
  if (i == n) return -2;
  for (; i < n; ++i) {
    if (s[i] < '0' || s[i] > '9') return -2;
    v = v * 10 + (s[i] - '0');
  }
  return negative ? -v : v;
}
}  // namespace

bool RequestReader::fill() {
  if (pos_ > 0 && pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  } else if (pos_ > (1 << 20)) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  const size_t had = buf_.size();
  buf_.resize(had + kRead);
  ssize_t n;
  do {
    n = ::recv(fd_, buf_.data() + had, kRead, 0);
  } while (n < 0 && errno == EINTR);
  buf_.resize(had + (n > 0 ? static_cast<size_t>(n) : 0));
  return n > 0;
}

bool RequestReader::line(std::string& out) {
  while (true) {
    const size_t nl = buf_.find("\r\n", pos_);
    if (nl != std::string::npos) {
      out.assign(buf_, pos_, nl - pos_);
      pos_ = nl + 2;
      return true;
    }
    if (buf_.size() - pos_ > 1024) return false;  // a header line is short
    if (!fill()) return false;
  }
}

bool RequestReader::exactly(char* dst, size_t n) {
  const size_t have = std::min(n, buf_.size() - pos_);
  std::memcpy(dst, buf_.data() + pos_, have);
  pos_ += have;
  size_t done = have;
  while (done < n) {  // the rest straight from the socket
    const ssize_t got = ::recv(fd_, dst + done, n - done, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    done += static_cast<size_t>(got);
  }
  return true;
}

bool RequestReader::next(std::vector<std::string>& argv) {
  argv.clear();
  std::string header;
  if (!line(header) || header.size() < 2 || header[0] != '*') return false;
  const int64_t count = decimal(header.data() + 1, header.size() - 1);
  if (count < 1 || count > kMaxArguments) return false;
  argv.resize(static_cast<size_t>(count));
  for (auto& arg : argv) {
    if (!line(header) || header.size() < 2 || header[0] != '$') return false;
    const int64_t n = decimal(header.data() + 1, header.size() - 1);
    if (n < 0 || n > kMaxBulk) return false;
    arg.resize(static_cast<size_t>(n));
    char crlf[2];
    if (!exactly(arg.data(), arg.size()) || !exactly(crlf, 2) || crlf[0] != '\r' || crlf[1] != '\n') return false;
  }
  return true;
}

bool RequestReader::whole_request_at(size_t at) const {
  auto header = [&](char kind, int64_t& value) {
    const size_t nl = buf_.find("\r\n", at);
    if (nl == std::string::npos || nl == at || buf_[at] != kind) return false;
    value = decimal(buf_.data() + at + 1, nl - at - 1);
    at = nl + 2;
    return value >= 0;
  };
  int64_t count = 0;
  if (!header('*', count)) return false;
  for (int64_t i = 0; i < count; ++i) {
    int64_t n = 0;
    if (!header('$', n)) return false;
    at += static_cast<size_t>(n) + 2;
    if (at > buf_.size()) return false;
  }
  return true;
}

bool RequestReader::more_buffered() const { return pos_ < buf_.size() && whole_request_at(pos_); }

}  // namespace ssim::resp
