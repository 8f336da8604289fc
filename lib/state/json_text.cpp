#include "lib/state/json_text.hpp"

#include <charconv>
#include <cmath>

namespace ssim::state {

namespace {
// nlohmann's own text for a value, with the replacement character for text that is not
// UTF-8 (a program's words in a reason), never a throw.
std::string dumped(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}
}  // namespace

void JsonText::newline(int depth) {
  if (indent_ < 0) return;
  out_ += '\n';
  out_.append(static_cast<size_t>(depth * indent_), ' ');
}

void JsonText::open_object() {
  out_ += '{';
  ++depth_;
  first_ = true;
}

void JsonText::close_object() {
  --depth_;
  if (!first_) newline(depth_);  // an empty object is "{}" in either form
  out_ += '}';
  first_ = false;
}

void JsonText::key(std::string_view k) {
  if (!first_) out_ += ',';
  first_ = false;
  newline(depth_);
  string(k);
  out_ += indent_ < 0 ? ":" : ": ";
}

void JsonText::string(std::string_view s) {
  // Printable ASCII with nothing to escape, as almost every name and path is, is itself.
  bool plain = true;
  for (const char c : s) plain = plain && c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  if (!plain) return value(nlohmann::json(std::string(s)));
  out_ += '"';
  out_ += s;
  out_ += '"';
}

void JsonText::number(double x) {
  if (!std::isfinite(x)) return null();
  char buffer[64];
  // The serializer's own conversion (Grisu2, "1.0" for a whole number): the same digits.
  const char* end = nlohmann::detail::to_chars(buffer, buffer + sizeof buffer, x);
  out_.append(buffer, static_cast<size_t>(end - buffer));
}

void JsonText::integer(long long n) {
  char buffer[24];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, n);
  out_.append(buffer, static_cast<size_t>(r.ptr - buffer));
}

void JsonText::value(const nlohmann::json& j) {
  std::string text = dumped(j, indent_);
  if (indent_ >= 0) {  // nested: each line after the first sits `depth_` levels in
    const std::string in(static_cast<size_t>(depth_ * indent_), ' ');
    std::string shifted;
    shifted.reserve(text.size());
    for (const char c : text) {
      shifted += c;
      if (c == '\n') shifted += in;
    }
    text = std::move(shifted);
  }
  out_ += text;
}

}  // namespace ssim::state
