#include "lib/report/html.hpp"

#include "lib/util/utf8.hpp"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace ssim::report {

std::string escape(std::string_view text) {
  // The page says UTF-8 and may be printed to a terminal (-o -): what a program printed
  // arrives as valid UTF-8 with no control characters.
  const std::string clean = sanitized_utf8(text, true);
  std::string out;
  out.reserve(clean.size());
  for (char c : clean) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string number(double value, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

std::string duration_text(double seconds) {
  if (seconds < 0) seconds = 0;
  char buf[64];
  if (seconds > 0 && seconds < 0.1) return number(seconds * 1000, seconds < 0.01 ? 2 : 1) + " ms";  // not "0 s" twice
  if (seconds < 60) return number(seconds, seconds < 10 ? 2 : 1) + " s";
  const long s = std::lround(seconds);
  if (s < 3600)
    std::snprintf(buf, sizeof buf, "%ld min %02ld s", s / 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld h %02ld min", s / 3600, (s % 3600) / 60);
  return buf;
}

std::string date_time(double epoch_seconds) {
  if (epoch_seconds <= 0) return "-";
  const std::time_t t = static_cast<std::time_t>(epoch_seconds);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

}  // namespace ssim::report
