#include "lib/state/quick_json.hpp"

#include <charconv>
#include <cstdint>
#include <string>

namespace ssim::state {

namespace {

using json = nlohmann::json;
using Sax = nlohmann::json_sax<json>;

class QuickReader {
 public:
  QuickReader(std::string_view text, Sax& sax) : p_(text.data()), end_(text.data() + text.size()), sax_(sax) {}

  bool whole() {
    if (!value(0)) return false;
    skip_space();
    return p_ == end_;
  }

 private:
  static constexpr int kMaxDepth = 64;  // deeper than any record ssim writes

  void skip_space() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }

  // A string of printable ASCII without escapes, into `out`; false for anything else.
  bool plain_string(std::string& out) {
    if (p_ == end_ || *p_ != '"') return false;
    const char* start = ++p_;
    while (p_ < end_) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        out.assign(start, p_);
        ++p_;
        return true;
      }
      if (c == '\\' || c < 0x20 || c >= 0x7f) return false;
      ++p_;
    }
    return false;
  }

  bool literal(std::string_view word) {
    if (static_cast<size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) return false;
    p_ += word.size();
    return true;
  }

  // JSON's number grammar, told as nlohmann tells it: unsigned, integer or float.
  bool number() {
    const char* start = p_;
    bool negative = false, integral = true;
    if (p_ < end_ && *p_ == '-') negative = true, ++p_;
    if (p_ == end_) return false;
    if (*p_ == '0') {
      ++p_;
    } else if (*p_ >= '1' && *p_ <= '9') {
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    } else {
      return false;
    }
    if (p_ < end_ && *p_ == '.') {
      integral = false, ++p_;
      if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      integral = false, ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }
    if (integral && !negative) {
      std::uint64_t v = 0;
      const auto r = std::from_chars(start, p_, v);
      if (r.ec != std::errc() || r.ptr != p_) return false;  // too large: nlohmann makes it a float
      return sax_.number_unsigned(v);
    }
    if (integral) {
      std::int64_t v = 0;
      const auto r = std::from_chars(start, p_, v);
      if (r.ec != std::errc() || r.ptr != p_) return false;
      return sax_.number_integer(v);
    }
    double v = 0;
    const auto r = std::from_chars(start, p_, v);
    if (r.ec != std::errc() || r.ptr != p_) return false;
    std::string text(start, p_);
    return sax_.number_float(v, text);
  }

  bool value(int depth) {
    skip_space();
    if (p_ == end_) return false;
    switch (*p_) {
      case '{':
        return object(depth);
      case '[':
        return array(depth);
      case '"': {
        std::string s;
        return plain_string(s) && sax_.string(s);
      }
      case 't':
        return literal("true") && sax_.boolean(true);
      case 'f':
        return literal("false") && sax_.boolean(false);
      case 'n':
        return literal("null") && sax_.null();
      default:
        return number();
    }
  }

  // After an item of an object or array: a comma (another item comes), its closing
  // bracket (taken), or something else.
  enum class After { More, Closed, Bad };
  After after_item(char close) {
    skip_space();
    if (p_ == end_) return After::Bad;
    if (*p_ == ',') return ++p_, After::More;
    if (*p_ == close) return ++p_, After::Closed;
    return After::Bad;
  }

  bool object(int depth) {
    if (depth >= kMaxDepth) return false;
    ++p_;  // {
    if (!sax_.start_object(static_cast<std::size_t>(-1))) return false;
    skip_space();
    if (p_ < end_ && *p_ == '}') return ++p_, sax_.end_object();
    while (true) {
      skip_space();
      std::string key;
      if (!plain_string(key) || !sax_.key(key)) return false;
      skip_space();
      if (p_ == end_ || *p_ != ':') return false;
      ++p_;
      if (!value(depth + 1)) return false;
      if (const After next = after_item('}'); next != After::More) return next == After::Closed && sax_.end_object();
    }
  }

  bool array(int depth) {
    if (depth >= kMaxDepth) return false;
    ++p_;  // [
    if (!sax_.start_array(static_cast<std::size_t>(-1))) return false;
    skip_space();
    if (p_ < end_ && *p_ == ']') return ++p_, sax_.end_array();
    while (true) {
      if (!value(depth + 1)) return false;
      if (const After next = after_item(']'); next != After::More) return next == After::Closed && sax_.end_array();
    }
  }

  const char* p_;
  const char* end_;
  Sax& sax_;
};

}  // namespace

bool quick_sax_parse(std::string_view text, Sax& sax) { return QuickReader(text, sax).whole(); }

}  // namespace ssim::state
