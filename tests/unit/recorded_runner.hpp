#pragma once
// A CommandRunner that answers each command with the next recorded answer for its
// program (the last one repeats) and keeps every call: launchers driven without a scheduler.
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "lib/launch/command_runner.hpp"

namespace ssim::test {

class RecordedRunner : public launch::CommandRunner {
 public:
  std::map<std::string, std::deque<launch::CommandResult>> answers;
  std::vector<std::vector<std::string>>* calls;
  std::chrono::milliseconds paused{0};  // the retries' backoff, waited out on no clock
  explicit RecordedRunner(std::vector<std::vector<std::string>>* c) : calls(c) {}
  void pause(std::chrono::milliseconds d) override { paused += d; }
  launch::CommandResult run(const std::vector<std::string>& argv, std::chrono::milliseconds,
                            const std::string&) override {
    calls->push_back(argv);
    auto& q = answers[argv[0]];
    if (q.empty()) return launch::CommandResult{127, "", argv[0] + ": no recorded answer"};
    launch::CommandResult r = q.front();
    if (q.size() > 1) q.pop_front();
    return r;
  }
};

}  // namespace ssim::test
