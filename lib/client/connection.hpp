#pragma once
// One connection to one database server.
//
// Small commands go through hiredis (connection set-up, AUTH, reply parsing).
// Tensor payloads do not: hiredis 0.14 formats every command into one buffer and copies
// the whole payload into it, then trims that buffer after each partial write; a 1 MiB
// SET through it runs ~14x below what the server accepts (see the project's measured
// limits). The bulk path here writes RESP framing and the caller's payload with writev
// (no copy) and reads bulk replies straight into the destination buffer. Both paths
// share the socket; that is safe because each finishes reading every reply it asked for
// before returning, so neither leaves bytes buffered for the other.
#include <hiredis/hiredis.h>
#include <sys/uio.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/client/errors.hpp"

namespace ssim::client {

// An error reply from the server ("-ERR ...", "-MOVED 123 host:port", ...).
struct ReplyError : ClientError {
  explicit ReplyError(const std::string& m) : ClientError(m), text(m) {}
  std::string text;
  bool moved() const { return text.rfind("MOVED ", 0) == 0; }
  bool ask() const { return text.rfind("ASK ", 0) == 0; }
  std::string target() const;  // host:port of a MOVED/ASK
  int slot() const;            // the slot of a MOVED/ASK
};

struct ReplyDeleter {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

// RESP commands queued for one writev: framing is owned here, payloads are pointers to
// the caller's memory and must stay alive until flush().
class Pipeline {
 public:
  void add(std::initializer_list<std::string_view> args);
  void add(const std::vector<std::string_view>& args);
  // SET key <value>, the value being the concatenation of `pieces` (not copied).
  void add_set(std::string_view key, const std::vector<std::string_view>& pieces);
  size_t size() const { return commands_; }
  bool empty() const { return commands_ == 0; }

 private:
  friend class Connection;
  void frame(std::string text);
  void data(std::string_view bytes);
  // Segments refer to framing by index, not address, so a Pipeline can be moved or
  // copied (e.g. inside a growing vector) before it is sent.
  struct Segment {
    size_t frame;  // index in framing_, or kPayload
    std::string_view payload;
  };
  static constexpr size_t kPayload = static_cast<size_t>(-1);
  std::vector<std::string> framing_;
  std::vector<Segment> segments_;
  size_t commands_ = 0;
};

class Connection {
 public:
  // TCP to host:port, or (port 0) the Unix socket at path `host`.
  Connection(const std::string& host, int port, const std::string& password, std::chrono::milliseconds timeout,
             std::chrono::milliseconds io_timeout = std::chrono::seconds(30));
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  const std::string& address() const { return address_; }
  // The bound on each read and write from now on.
  void set_io_timeout(std::chrono::milliseconds timeout);

  // A small command through hiredis. Error replies throw ReplyError.
  Reply command(const std::vector<std::string_view>& argv);

  // Bulk path.
  void send(Pipeline& p);
  // Reads one reply that must be a status or integer ("+OK", ":1"); throws ReplyError.
  std::string read_status();
  // Reads the "$len" of a bulk reply: nullopt for nil; throws ReplyError for an error.
  std::optional<uint64_t> read_bulk_length();
  // Reads exactly n bytes of the current bulk reply into dst (nullptr: discard them).
  void read_bytes(void* dst, uint64_t n);
  // Ends the current bulk reply (its CRLF).
  void end_bulk();

  // Every reply sent for has been read to its end, and nothing failed mid-reply: the
  // next reply read is the next command's. A connection out of step (a read that threw
  // half-way, an allocation that failed before a payload was read) is never reused: the
  // router replaces it (Router::at), and its reads refuse.
  bool in_step() const { return !broken_ && awaited_ == 0 && !in_reply_; }

 private:
  void reply_done();
  size_t fill();  // reads more from the socket into the buffer
  std::string read_line();
  [[noreturn]] void lost(const std::string& what);

  redisContext* ctx_ = nullptr;
  int fd_ = -1;
  std::string address_;
  std::vector<char> buf_;
  size_t begin_ = 0, end_ = 0;  // unread bytes in buf_
  size_t awaited_ = 0;          // replies sent for (send) and not yet read to their end
  bool in_reply_ = false;       // a bulk reply's length was read, its end not yet
  bool broken_ = false;         // lost, or out of step
};

}  // namespace ssim::client
