#pragma once
// What an error thrown below means to whoever called ssim: the exit code of docs/cli.md
// (2: the request or the file is wrong and nothing was started; 3: the environment
// failed) and one printable line. The CLI, the dashboard and the Python API all say
// failures through this one mapping.
#include <exception>
#include <string>

namespace ssim::session {

struct Failure {
  int exit_code = 3;
  std::string message;   // one line, control characters made visible
  bool located = false;  // the message starts with FILE:LINE:COL (a bad experiment file)
  // As ssim prints it on stderr: "ssim: MESSAGE", or the located message as it is.
  std::string line() const { return located ? message : "ssim: " + message; }
};

Failure describe_failure(std::exception_ptr error);

}  // namespace ssim::session
