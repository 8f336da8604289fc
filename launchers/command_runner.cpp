#include "launchers/command_runner.hpp"

#include <unistd.h>

#include <boost/process.hpp>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "lib/util/atomic_file.hpp"
#include "lib/util/shell_quote.hpp"

namespace ssim::launchers {

namespace bp = boost::process;

namespace {
class ProcessRunner : public CommandRunner {
 public:
  CommandResult run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                    const std::string& stdin_path) override {
    CommandResult r;
    // Output to temporary files: reading two pipes in turn could deadlock.
    char out_tmpl[] = "/tmp/ssim-cmd-out-XXXXXX", err_tmpl[] = "/tmp/ssim-cmd-err-XXXXXX";
    const int out_fd = mkstemp(out_tmpl), err_fd = mkstemp(err_tmpl);
    if (out_fd >= 0) close(out_fd);
    if (err_fd >= 0) close(err_fd);
    try {
      const auto exe = argv[0].find('/') != std::string::npos ? bp::filesystem::path(argv[0]) : bp::search_path(argv[0]);
      if (exe.empty()) {
        r.err = argv[0] + ": command not found";
      } else {
        std::vector<std::string> args(argv.begin() + 1, argv.end());
        const bp::filesystem::path in = stdin_path.empty() ? bp::filesystem::path("/dev/null") : stdin_path;
        bp::child c(exe, bp::args = args, bp::std_in < in, bp::std_out > out_tmpl, bp::std_err > err_tmpl);
        if (!c.wait_for(timeout)) {
          c.terminate();
          r.timed_out = true;
        } else {
          r.exit_code = c.exit_code();
        }
      }
    } catch (const bp::process_error& e) {
      r.err = e.what();
    }
    if (auto t = read_file(out_tmpl)) r.out = *t;
    if (auto t = read_file(err_tmpl)) r.err += *t;
    unlink(out_tmpl);
    unlink(err_tmpl);
    return r;
  }
};
}  // namespace

std::unique_ptr<CommandRunner> make_process_runner() { return std::make_unique<ProcessRunner>(); }

CommandResult run_with_retries(CommandRunner& runner, const std::vector<std::string>& argv,
                               std::chrono::milliseconds timeout, const std::function<void(const std::string&)>& log,
                               int tries) {
  static const std::chrono::milliseconds backoff[] = {std::chrono::milliseconds(200), std::chrono::milliseconds(500),
                                                      std::chrono::milliseconds(1000)};
  CommandResult r;
  for (int i = 0; i < tries; ++i) {
    r = runner.run(argv, timeout);
    if (r.exit_code == 0) return r;
    if (log) {
      std::string why = r.timed_out ? "timed out" : "exit code " + std::to_string(r.exit_code);
      std::string err = r.err.substr(0, 200);
      while (!err.empty() && err.back() == '\n') err.pop_back();
      log(shell_join(argv) + ": " + why + (err.empty() ? "" : ": " + err) + (i + 1 < tries ? "; retrying" : ""));
    }
    if (i + 1 < tries) std::this_thread::sleep_for(backoff[std::min(i, 2)]);  // scheduler backoff
  }
  return r;
}

}  // namespace ssim::launchers
