#pragma once
// One status query for every job and step, at a pace a production server accepts: at
// once for a job it has not answered about yet, then every second, slowing to every
// kMaxInterval while nothing changes. In the background (set_in_background) the query
// runs beside the caller, which gets the last answer meanwhile, so a slow or hung
// accounting daemon never holds up launching; one query at a time.
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <string>
#include <vector>

#include "launchers/batch/scheduler.hpp"
#include "lib/launch/command_runner.hpp"
#include "lib/util/clock.hpp"

namespace ssim::launchers {

class SchedulerQueries {
 public:
  using Log = std::function<void(const std::string&)>;
  SchedulerQueries(Scheduler& scheduler, launch::CommandRunner& runner, const Log& log)
      : scheduler_(scheduler), runner_(runner), log_(log) {}
  // Waits for a query still under way: its thread uses the runner.
  ~SchedulerQueries() {
    if (query_.valid()) query_.wait();
  }

  // The scheduler's word on `ids` (those it lists), fresh or the last one; empty when
  // the query just failed (the supervisors' view then stands alone).
  std::map<std::string, launch::JobStatus> answer(const std::vector<std::string>& ids);
  int count() const { return queries_; }
  void set_in_background(bool background) { in_background_ = background; }
  void set_clock(const ssim::Clock& clock) { clock_ = &clock; }

 private:
  // Takes the answer to a query about `ids`; false when it was none (the command failed).
  // A switch to another source (PBS history off, Slurm accounting off) is no failure:
  // the next query goes out at once.
  bool absorb(const std::vector<std::string>& ids, const launch::CommandResult& r);

  static constexpr std::chrono::milliseconds kMinInterval{1000};
  static constexpr std::chrono::milliseconds kMaxInterval{10000};

  Scheduler& scheduler_;
  launch::CommandRunner& runner_;
  const Log& log_;
  const ssim::Clock* clock_ = &real_clock();
  int queries_ = 0;
  bool in_background_ = false;
  std::chrono::steady_clock::time_point next_query_{};
  std::chrono::milliseconds interval_ = kMinInterval;
  std::map<std::string, launch::JobStatus> last_said_;  // the last answer, reused until the next query
  std::future<launch::CommandResult> query_;            // the query under way, in the background
  std::vector<std::string> query_ids_;                  // what it asks about
  bool ask_again_ = false;                              // the last answer switched sources: ask at once
};

}  // namespace ssim::launchers
