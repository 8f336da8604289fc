#pragma once
// One error type for bad input: it always knows the file, the position and the
// field path, so every message is one line: FILE:LINE:COL: field.path: message.
#include <stdexcept>
#include <string>

namespace ssim::spec {

struct Loc {
  int line = 0;  // 1-based; 0 means unknown
  int col = 0;
};

// `text` as one printable line: control and invalid UTF-8 bytes escaped (\n, \x1b),
// cut after about `max_bytes` with "...". With keep_newlines, \n stays a line break. Every message about user input
// goes through it, so a binary or hostile file cannot put raw escape sequences on a terminal.
std::string printable(const std::string& text, size_t max_bytes = 80, bool keep_newlines = false);

class SpecError : public std::runtime_error {
 public:
  SpecError(std::string file, Loc loc, std::string field, std::string message);
  const std::string& file() const { return file_; }
  Loc loc() const { return loc_; }
  const std::string& field() const { return field_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  Loc loc_;
  std::string field_;
  std::string message_;
};

}  // namespace ssim::spec
