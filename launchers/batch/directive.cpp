#include "launchers/batch/directive.hpp"

#include <cstdio>
#include <stdexcept>

namespace ssim::launchers {

void check_directive_value(const std::string& what, const std::string& value) {
  for (const char c : value)
    if (c == '\n' || c == '\r' || c == '"' || c == '\0')
      throw std::invalid_argument("batch option " + what + " has a value that cannot go into a batch script");
}

void check_directive_option(const std::string& option) {
  check_directive_value(option, option);
  if (option.empty() || option.find_first_of(" \t") != std::string::npos)
    throw std::invalid_argument("batch option \"" + option + "\" cannot go into a batch script");
}

std::string directive_word(const std::string& value) {
  return value.find_first_of(" \t") != std::string::npos ? "\"" + value + "\"" : value;
}

std::string hms(long seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%02ld:%02ld:%02ld", seconds / 3600, seconds / 60 % 60, seconds % 60);
  return buf;
}

}  // namespace ssim::launchers
