#pragma once
// The nodes of an allocation the scheduler took out of use while ssim runs in it (drained,
// down). Slurm still starts steps of a running job on a drained node, so ssim itself
// stops placing there. Asked every 10 s while packed steps share the pool: in the
// background (a hung sinfo never holds up launching), in line when status queries are.
#include <chrono>
#include <future>
#include <map>
#include <string>
#include <vector>

#include "launchers/batch/scheduler.hpp"
#include "lib/launch/command_runner.hpp"
#include "lib/launch/node_pool.hpp"
#include "lib/util/clock.hpp"

namespace ssim::launchers {

class NodesOutOfUse {
 public:
  NodesOutOfUse(const Scheduler& scheduler, launch::CommandRunner& runner) : scheduler_(scheduler), runner_(runner) {}
  ~NodesOutOfUse() {
    if (query_.valid()) query_.wait();  // its thread uses the runner
  }

  // Asks about the nodes of `pool` when it is time; returns true when an answer was taken now.
  bool check(const std::vector<launch::PoolNode>& pool);
  // Node -> why, per the last answer: the whole list of nodes out of use now, so one it
  // no longer names (resumed by an administrator) is in use again.
  const std::map<std::string, std::string>& nodes() const { return out_of_use_; }
  void set_in_background(bool background) { in_background_ = background; }
  void set_clock(const ssim::Clock& clock) { clock_ = &clock; }

 private:
  bool take(const launch::CommandResult& answer);  // a failed query changes nothing

  static constexpr std::chrono::seconds kInterval{10};
  const Scheduler& scheduler_;
  launch::CommandRunner& runner_;
  const ssim::Clock* clock_ = &real_clock();
  bool in_background_ = false;
  std::future<launch::CommandResult> query_;
  std::chrono::steady_clock::time_point next_query_{};
  std::map<std::string, std::string> out_of_use_;
};

}  // namespace ssim::launchers
