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
  if (!buf_) {
    capacity_ = kRead;
    buf_ = std::make_unique<char[]>(capacity_);
  }
  if (pos_ == end_) {
    pos_ = end_ = 0;
  } else if (end_ == capacity_) {  // a request's head straddles the end: move it to the front
    std::memmove(buf_.get(), buf_.get() + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
  }
  ssize_t n;
  do {
    n = ::recv(fd_, buf_.get() + end_, capacity_ - end_, 0);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return false;
  end_ += static_cast<size_t>(n);
  return true;
}

bool RequestReader::line(std::string& out) {
  while (true) {
    const std::string_view have = buffered();
    const size_t nl = have.find("\r\n");
    if (nl != std::string_view::npos) {
      out.assign(have.data(), nl);
      pos_ += nl + 2;
      return true;
    }
    if (have.size() > 1024) return false;  // a header line is short
    if (!fill()) return false;
  }
}

bool RequestReader::exactly(char* dst, size_t n) {
  const size_t have = std::min(n, end_ - pos_);
  std::memcpy(dst, buf_.get() + pos_, have);
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

bool RequestReader::more_buffered() const {
  const std::string_view have = buffered();
  size_t at = 0;
  auto header = [&](char kind, int64_t& value) {
    const size_t nl = have.find("\r\n", at);
    if (nl == std::string_view::npos || nl == at || have[at] != kind) return false;
    value = decimal(have.data() + at + 1, nl - at - 1);
    at = nl + 2;
    return value >= 0;
  };
  int64_t count = 0;
  if (!header('*', count)) return false;
  for (int64_t i = 0; i < count; ++i) {
    int64_t n = 0;
    if (!header('$', n)) return false;
    at += static_cast<size_t>(n) + 2;
    if (at > have.size()) return false;
  }
  return true;
}

}  // namespace ssim::resp
