#pragma once
// A small RESP server: one thread per connection (a caller waits on its own call, so
// blocking I/O is the lowest latency), requests read by RequestReader, replies written
// by hand or handed over already encoded. Used by the inference service and the
// SmartRedis door.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ssim::resp {

struct Reply {
  bool error = false;
  std::string text;  // "+OK" body, error message (one line), or a bulk string's bytes
  bool bulk = false;
  bool raw = false;  // `text` is already RESP (resp_writer.hpp): written as it is
  // With raw: written after `text`, without a copy: a tensor's bytes (kept alive by
  // `keep`), then `tail`.
  std::string_view payload;
  std::string tail;
  std::shared_ptr<const void> keep;
};

// One connection's requests, handled in order on that connection's thread.
class Session {
 public:
  virtual ~Session() = default;
  // `argv` is the session's to take from (a large argument may be moved out).
  virtual Reply handle(std::vector<std::string>& argv) = 0;
};

// Listens on `host` (an IPv4/IPv6 address, port chosen by the kernel) and, when
// `unix_path` is given, on that Unix socket too (callers on this node: a shorter path);
// serve() then accepts forever, one Session per connection.
class RespServer {
 public:
  RespServer(const std::string& host, const std::string& unix_path);
  const std::string& address() const { return address_; }  // "host:port"
  const std::string& unix_path() const { return unix_path_; }
  // Asked for each accepted connection before it is served: "" to serve it, or the
  // error line it is answered with before it is closed.
  void set_admission(std::function<std::string(int fd)> admit) { admit_ = std::move(admit); }
  [[noreturn]] void serve(const std::function<std::unique_ptr<Session>()>& open);

 private:
  int fd_ = -1, unix_fd_ = -1;
  std::string address_, unix_path_;
  std::function<std::string(int fd)> admit_;
};

}  // namespace ssim::resp
