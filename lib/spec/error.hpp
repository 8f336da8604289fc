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
