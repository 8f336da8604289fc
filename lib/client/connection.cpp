#include "lib/client/connection.hpp"

#include <errno.h>
#include <limits.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace ssim::client {

int ReplyError::slot() const {
  const size_t a = text.find(' '), b = text.rfind(' ');
  return a == std::string::npos || b <= a ? -1 : std::atoi(text.substr(a + 1, b - a - 1).c_str());
}

std::string ReplyError::target() const {
  const size_t space = text.rfind(' ');
  return space == std::string::npos ? "" : text.substr(space + 1);
}

void Pipeline::frame(std::string text) {
  framing_.push_back(std::move(text));
  segments_.push_back({framing_.size() - 1, {}});
}

void Pipeline::data(std::string_view bytes) {
  if (!bytes.empty()) segments_.push_back({kPayload, bytes});
}

void Pipeline::add(const std::vector<std::string_view>& args) {
  std::string head = "*" + std::to_string(args.size()) + "\r\n";
  for (const auto& a : args) {
    head += "$" + std::to_string(a.size()) + "\r\n";
    if (a.size() <= 256) {  // small arguments: copying beats an extra iovec
      head.append(a.data(), a.size());
      head += "\r\n";
    } else {
      frame(std::move(head));
      data(a);
      head = "\r\n";
    }
  }
  frame(std::move(head));
  ++commands_;
}

void Pipeline::add_set(std::string_view key, const std::vector<std::string_view>& pieces) {
  size_t total = 0;
  for (const auto& p : pieces) total += p.size();
  std::string head = "*3\r\n$3\r\nSET\r\n$" + std::to_string(key.size()) + "\r\n";
  head.append(key.data(), key.size());
  head += "\r\n$" + std::to_string(total) + "\r\n";
  for (const auto& p : pieces) {
    if (p.size() <= 256) {
      head.append(p.data(), p.size());
    } else {
      frame(std::move(head));
      data(p);
      head.clear();
    }
  }
  head += "\r\n";
  frame(std::move(head));
  ++commands_;
}

void Pipeline::add(std::initializer_list<std::string_view> args) { add(std::vector<std::string_view>(args)); }

Connection::Connection(const std::string& host, int port, const std::string& password,
                       std::chrono::milliseconds timeout, std::chrono::milliseconds io_timeout)
    : address_(port == 0 ? "unix:" + host : host + ":" + std::to_string(port)), buf_(1 << 16) {
  const timeval tv{static_cast<time_t>(timeout.count() / 1000),
                   static_cast<suseconds_t>((timeout.count() % 1000) * 1000)};
  ctx_ = port == 0 ? redisConnectUnixWithTimeout(host.c_str(), tv) : redisConnectWithTimeout(host.c_str(), port, tv);
  if (!ctx_ || ctx_->err) {
    const std::string why = ctx_ ? ctx_->errstr : "out of memory";
    if (ctx_) redisFree(ctx_);
    ctx_ = nullptr;
    throw ConnectionError("cannot connect to the database at " + address_ + ": " + why);
  }
  fd_ = ctx_->fd;
  // Bounded waits on every read and write: a dead server is an error, never a hang.
  const auto io_ms = std::max(io_timeout, timeout);
  const timeval io{static_cast<time_t>(io_ms.count() / 1000), static_cast<suseconds_t>((io_ms.count() % 1000) * 1000)};
  redisSetTimeout(ctx_, io);
  if (!password.empty()) {
    try {
      command({"AUTH", password});
    } catch (const ReplyError& e) {
      redisFree(ctx_);
      ctx_ = nullptr;
      throw AuthError("the database at " + address_ + " refused the password: " + e.text);
    }
  }
}

void Connection::set_io_timeout(std::chrono::milliseconds t) {
  const timeval io{static_cast<time_t>(t.count() / 1000), static_cast<suseconds_t>((t.count() % 1000) * 1000)};
  redisSetTimeout(ctx_, io);
}

Connection::~Connection() {
  if (ctx_) redisFree(ctx_);
}

void Connection::lost(const std::string& what) {
  broken_ = true;
  throw ConnectionError("lost the database at " + address_ + ": " + what);
}

void Connection::reply_done() {
  if (awaited_ > 0) --awaited_;
}

Reply Connection::command(const std::vector<std::string_view>& argv) {
  if (!in_step()) lost("out of step: an earlier reply was not read to its end");
  std::vector<const char*> args;
  std::vector<size_t> lens;
  for (const auto& a : argv) {
    args.push_back(a.data());
    lens.push_back(a.size());
  }
  Reply r(static_cast<redisReply*>(redisCommandArgv(ctx_, static_cast<int>(args.size()), args.data(), lens.data())));
  if (!r) lost(ctx_->errstr[0] ? ctx_->errstr : "no reply");
  if (r->type == REDIS_REPLY_ERROR) {
    const std::string text(r->str, r->len);
    if (text.rfind("NOAUTH", 0) == 0 || text.rfind("WRONGPASS", 0) == 0)
      throw AuthError("the database at " + address_ + " needs a password (" + text + "); is SSDB_PASSWORD set?");
    throw ReplyError(text);
  }
  return r;
}

void Connection::send(Pipeline& p) {
  if (broken_) lost("out of step: an earlier reply was not read to its end");
  awaited_ += p.size();
  std::vector<iovec> iov;
  iov.reserve(p.segments_.size());
  for (const auto& seg : p.segments_) {
    const std::string_view bytes =
        seg.frame == Pipeline::kPayload ? seg.payload : std::string_view(p.framing_[seg.frame]);
    if (!bytes.empty()) iov.push_back({const_cast<char*>(bytes.data()), bytes.size()});
  }
  size_t i = 0;
  while (i < iov.size()) {
    const int count = static_cast<int>(std::min<size_t>(iov.size() - i, IOV_MAX));
    ssize_t n = ::writev(fd_, iov.data() + i, count);
    if (n < 0) {
      if (errno == EINTR) continue;
      lost(errno == EAGAIN ? "timed out writing" : std::strerror(errno));
    }
    // Skip what was written; a partially written iovec is advanced in place.
    while (n > 0 && i < iov.size()) {
      if (static_cast<size_t>(n) >= iov[i].iov_len) {
        n -= static_cast<ssize_t>(iov[i].iov_len);
        ++i;
      } else {
        iov[i].iov_base = static_cast<char*>(iov[i].iov_base) + n;
        iov[i].iov_len -= static_cast<size_t>(n);
        n = 0;
      }
    }
  }
}

size_t Connection::fill() {
  if (begin_ == end_) begin_ = end_ = 0;
  if (end_ == buf_.size()) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  while (true) {
    ssize_t n = ::recv(fd_, buf_.data() + end_, buf_.size() - end_, 0);
    if (n > 0) {
      end_ += static_cast<size_t>(n);
      return static_cast<size_t>(n);
    }
    if (n == 0) lost("connection closed");
    if (errno == EINTR) continue;
    lost(errno == EAGAIN ? "timed out waiting for a reply" : std::strerror(errno));
  }
}

std::string Connection::read_line() {
  while (true) {
    const char* start = buf_.data() + begin_;
    const char* nl = static_cast<const char*>(std::memchr(start, '\n', end_ - begin_));
    if (nl) {
      std::string line(start, static_cast<size_t>(nl - start));
      begin_ += line.size() + 1;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return line;
    }
    fill();
  }
}

std::string Connection::read_status() {
  if (broken_ || in_reply_) lost("out of step: an earlier reply was not read to its end");
  const std::string line = read_line();
  if (line.empty()) lost("empty reply");
  if (line[0] == '-') {
    reply_done();  // an error reply is a whole reply: the next one is in step
    throw ReplyError(line.substr(1));
  }
  if (line[0] == '+' || line[0] == ':') {
    reply_done();
    return line.substr(1);
  }
  lost("unexpected reply \"" + line.substr(0, 40) + "\"");
}

std::optional<uint64_t> Connection::read_bulk_length() {
  if (broken_ || in_reply_) lost("out of step: an earlier reply was not read to its end");
  const std::string line = read_line();
  if (line.empty()) lost("empty reply");
  if (line[0] == '-') {
    reply_done();
    throw ReplyError(line.substr(1));
  }
  if (line[0] != '$') lost("unexpected reply \"" + line.substr(0, 40) + "\"");
  if (line == "$-1") {
    reply_done();
    return std::nullopt;
  }
  const std::string digits = line.substr(1);
  if (digits.empty() || digits.size() > 19 || digits.find_first_not_of("0123456789") != std::string::npos)
    lost("bad bulk length \"" + line.substr(0, 40) + "\"");
  in_reply_ = true;
  return std::stoull(digits);
}

void Connection::read_bytes(void* dst, uint64_t n) {
  char* out = static_cast<char*>(dst);
  // First what is already buffered, then straight from the socket into dst.
  const size_t buffered = std::min<uint64_t>(n, end_ - begin_);
  if (out && buffered) std::memcpy(out, buf_.data() + begin_, buffered);
  begin_ += buffered;
  uint64_t done = buffered;
  while (done < n) {
    if (!out) {
      fill();
      const size_t take = std::min<uint64_t>(n - done, end_ - begin_);
      begin_ += take;
      done += take;
      continue;
    }
    ssize_t r = ::recv(fd_, out + done, n - done, MSG_WAITALL);
    if (r > 0) {
      done += static_cast<uint64_t>(r);
      continue;
    }
    if (r == 0) lost("connection closed");
    if (errno == EINTR) continue;
    lost(errno == EAGAIN ? "timed out reading a value" : std::strerror(errno));
  }
}

void Connection::end_bulk() {
  char crlf[2];
  read_bytes(crlf, 2);
  if (crlf[0] != '\r' || crlf[1] != '\n') lost("a bulk reply longer than it said");
  in_reply_ = false;
  reply_done();
}

}  // namespace ssim::client
