#include "launchers/batch/directive.hpp"

#include <cstdio>
#include <stdexcept>

#include "lib/spec/error.hpp"
#include "lib/util/errors.hpp"

namespace ssim::launchers {

// Directive lines are read by the scheduler, not by a shell: nothing in them can be
// quoted, so a value with a quote or a line break cannot be written at all. That is bad
// input (most often a path), reported before anything is written.
void check_directive_value(const std::string& what, const std::string& value) {
  for (const char c : value)
    if (c == '\n' || c == '\r' || c == '"' || c == '\0')
      throw UsageError("batch option " + what + ": " + spec::printable(value, 200) +
                       " holds a double quote or a line break, which a batch-script directive cannot carry" +
                       " (if it is a path, choose an experiment.path without them)");
}

void check_directive_option(const std::string& option) {
  check_directive_value(option, option);
  if (option.empty() || option.find_first_of(" \t") != std::string::npos)
    throw UsageError("batch option \"" + spec::printable(option) + "\" cannot go into a batch script");
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
