#pragma once
// JSON written straight into a string, byte for byte as nlohmann's dump(indent) writes
// the same value (the reference: a test compares the two), for documents too large to
// build as objects first: `ssim status --json` of a million entities built a million
// sorted maps, half of its time. The caller writes an object's keys in sorted order, as
// nlohmann's objects keep them.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace ssim::state {

class JsonText {
 public:
  // `indent` < 0: compact; `depth`: how deep the first value written sits in the whole.
  JsonText(std::string& out, int indent, int depth = 0) : out_(out), indent_(indent), depth_(depth) {}
  void open_object();
  void close_object();
  void key(std::string_view k);  // the next member's key; its value comes next
  void string(std::string_view s);
  void number(double x);
  void integer(long long n);
  void boolean(bool b) { out_ += b ? "true" : "false"; }
  void null() { out_ += "null"; }
  void value(const nlohmann::json& j);  // anything else, through nlohmann

 private:
  void newline(int depth);
  std::string& out_;
  int indent_, depth_;
  bool first_ = true;  // no member yet in the object open now
};

}  // namespace ssim::state
