#pragma once
// How launchers talk to a scheduler: argv in; exit code, stdout and stderr out. Unit
// tests give launchers recorded outputs through this seam; real runs use posix_spawn.
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ssim::launch {

struct CommandResult {
  int exit_code = -1;  // -1: could not run or timed out
  std::string out;
  std::string err;
  bool timed_out = false;
};

class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  // `stdin_path`: a file for the command's standard input ("" for none).
  virtual CommandResult run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                            const std::string& stdin_path = "") = 0;
  // Waits out a retry's backoff (the real runner sleeps; recorded ones in tests do not).
  virtual void pause(std::chrono::milliseconds d);
};

// Runs commands with posix_spawn (argv only, no shell; the program found on PATH), each in
// a process group of its own that a timeout kills whole. It returns as soon as the program
// ends, whatever it left running (its output goes to memory files, not pipes).
std::unique_ptr<CommandRunner> make_process_runner();

// Runs `argv` until it exits 0, retrying failures and timeouts with backoff (0.2 s,
// 0.5 s, 1 s); every failed try is reported to `log`. Returns the last result.
CommandResult run_with_retries(CommandRunner& runner, const std::vector<std::string>& argv,
                               std::chrono::milliseconds timeout, const std::function<void(const std::string&)>& log,
                               int tries = 4);

}  // namespace ssim::launch
