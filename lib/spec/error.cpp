#include "lib/spec/error.hpp"

#include <cstdio>

namespace ssim::spec {

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not one.
size_t utf8_length(const std::string& s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  const size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  return n;
}

std::string format(const std::string& file, Loc loc, const std::string& field, const std::string& message) {
  std::string out = printable(file, 1024);
  if (loc.line > 0) out += ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
  out += ": ";
  if (!field.empty()) out += printable(field, 300) + ": ";
  return out + printable(message, 600);
}
}  // namespace

std::string printable(const std::string& text, size_t max_bytes, bool keep_newlines) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (out.size() >= max_bytes) return out + "...";
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += text[i];
    } else if (const size_t n = c >= 0x80 ? utf8_length(text, i) : 0) {
      out.append(text, i, n);
      i += n - 1;
    } else if (c == '\n') {
      out += keep_newlines ? "\n" : "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

SpecError::SpecError(std::string file, Loc loc, std::string field, std::string message)
    : std::runtime_error(format(file, loc, field, message)),
      file_(std::move(file)),
      loc_(loc),
      field_(std::move(field)),
      message_(std::move(message)) {}

}  // namespace ssim::spec
