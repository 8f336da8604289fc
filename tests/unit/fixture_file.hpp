#pragma once
// Reading recorded outputs from tests/fixtures for the parser tests.
#include <fstream>
#include <sstream>
#include <string>

#include "lib/launch/command_runner.hpp"

namespace ssim::test {

inline std::string fixture(const std::string& relative) {
  std::ifstream in(std::string(SSIM_FIXTURES) + "/" + relative);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A recorded command: <dir>/<probe>.out, .err and .rc (missing parts are empty / 0).
inline launch::CommandResult recorded(const std::string& dir, const std::string& probe) {
  launch::CommandResult r;
  r.out = fixture(dir + "/" + probe + ".out");
  r.err = fixture(dir + "/" + probe + ".err");
  std::string rc = fixture(dir + "/" + probe + ".rc");
  if (rc.rfind("rc=", 0) == 0) rc = rc.substr(3);
  r.exit_code = rc.empty() ? 0 : std::stoi(rc);
  return r;
}

}  // namespace ssim::test
