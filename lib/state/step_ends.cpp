#include "lib/state/step_ends.hpp"

#include <cstdlib>

namespace ssim::state {

std::string step_ends_path(const std::string& run_dir) { return run_dir + "/.ssim-step-ends"; }

std::string encode_step_end(const std::string& rank, int exit_code, int signal) {
  return (rank.empty() ? "0" : rank) + " " + (signal ? "sig" + std::to_string(signal) : std::to_string(exit_code)) +
         "\n";
}

namespace {
// A whole non-negative number, or -1.
int step_number(const std::string& s) {
  if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::atoi(s.c_str());
}
}  // namespace

StepEnds parse_step_ends(const std::string& text) {
  StepEnds ends;
  size_t at = 0;
  while (true) {
    const size_t eol = text.find('\n', at);
    if (eol == std::string::npos) break;  // no newline: not whole
    const std::string line = text.substr(at, eol - at);
    at = eol + 1;
    const size_t space = line.find(' ');
    if (space == std::string::npos || line.find(' ', space + 1) != std::string::npos) continue;
    const std::string rank = line.substr(0, space), code = line.substr(space + 1);
    const bool by_signal = code.rfind("sig", 0) == 0;
    const int value = step_number(by_signal ? code.substr(3) : code);
    if (step_number(rank) < 0 || value < 0) continue;
    ++ends.recorded;
    if ((by_signal || value != 0) && !ends.rank) {
      ends.rank = rank;
      if (by_signal)
        ends.signal = value;
      else
        ends.exit_code = value;
    }
  }
  return ends;
}

}  // namespace ssim::state
