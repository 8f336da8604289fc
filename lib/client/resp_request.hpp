#pragma once
// Requests read off a RESP connection: arrays of bulk strings, what every Redis client
// sends. A large argument (a tensor's bytes) is received straight into its own string,
// without a parser's buffer between: one copy from the kernel, which matters at 64 MiB.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ssim::resp {

class RequestReader {
 public:
  explicit RequestReader(int fd) : fd_(fd) {}
  // The next request into `argv`; false at the end of the connection or on bytes that
  // are not a RESP request (the caller then closes it).
  bool next(std::vector<std::string>& argv);
  // True when a whole request is already buffered: the caller may hold its replies back
  // and write them together (a pipeline).
  bool more_buffered() const;

 private:
  bool fill();                        // one recv into the buffer; false at the end
  bool line(std::string& out);        // up to "\r\n", receiving as needed
  bool exactly(char* dst, size_t n);  // n bytes: from the buffer first, then the socket
  std::string_view buffered() const { return {buf_.get() + pos_, end_ - pos_}; }

  int fd_;
  std::unique_ptr<char[]> buf_;  // [pos_, end_) received, not yet taken; never zero-filled
  size_t capacity_ = 0, pos_ = 0, end_ = 0;
};

}  // namespace ssim::resp
