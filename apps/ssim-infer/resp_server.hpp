#pragma once
// A small RESP server: one thread per connection (a caller waits on its own model call,
// so blocking I/O is the lowest latency), requests parsed by hiredis's reader, replies
// written by hand. Only what the data client's Connection sends: arrays of bulk strings.
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ssim::infer {

struct Reply {
  bool error = false;
  std::string text;  // "+OK" body, error message (one line), or a bulk string's bytes
  bool bulk = false;
};

// One connection's requests, handled in order on that connection's thread.
class Session {
 public:
  virtual ~Session() = default;
  virtual Reply handle(const std::vector<std::string>& argv) = 0;
};

// Listens on `host` (an IPv4/IPv6 address, port chosen by the kernel) and, when
// `unix_path` is given, on that Unix socket too (callers on this node: a shorter path);
// serve() then accepts forever, one Session per connection.
class RespServer {
 public:
  RespServer(const std::string& host, const std::string& unix_path);
  const std::string& address() const { return address_; }  // "host:port"
  const std::string& unix_path() const { return unix_path_; }
  [[noreturn]] void serve(const std::function<std::unique_ptr<Session>()>& open);

 private:
  int fd_ = -1, unix_fd_ = -1;
  std::string address_, unix_path_;
};

}  // namespace ssim::infer
