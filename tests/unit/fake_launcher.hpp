#pragma once
// A launcher and a clock for driving the engine without processes (ninja's
// FakeCommandRunner): jobs end as the test scripts them, time moves only when the engine
// waits or sleeps, and signals arrive at the tick the test names.
#include <map>
#include <string>
#include <vector>

#include "lib/engine/waiter.hpp"
#include "lib/launch/launcher.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/errors.hpp"

namespace ssim::test {

class FakeClock : public Clock {
 public:
  double now() const override { return 1.7e9 + elapsed_.count() / 1000.0; }
  std::chrono::steady_clock::time_point steady() const override {
    return std::chrono::steady_clock::time_point(elapsed_);
  }
  void sleep(std::chrono::milliseconds d) const override { elapsed_ += d; }
  double seconds() const { return elapsed_.count() / 1000.0; }

 private:
  mutable std::chrono::milliseconds elapsed_{0};
};

// The engine's waits move the clock; `signal_at[n]` is delivered by the n-th wait (0-based).
class FakeWaiter : public engine::Waiter {
 public:
  explicit FakeWaiter(FakeClock& clock) : clock_(clock) {}
  std::string wait(int timeout_ms) override {
    clock_.sleep(std::chrono::milliseconds(timeout_ms));
    const auto it = signal_at.find(waits++);
    if (it != signal_at.end()) return it->second;
    if (on_wait) on_wait(waits);
    return "";
  }
  std::map<int, std::string> signal_at;
  std::function<void(int)> on_wait;  // called after each wait without a signal
  int waits = 0;

 private:
  FakeClock& clock_;
};

class FakeLauncher : public launch::Launcher, public launch::BatchScheduling {
 public:
  explicit FakeLauncher(const FakeClock& clock) : clock_(clock) {}

  // How the attempts of `name` end, in order (0: completed), each after `polls` polls
  // that find it running. Unscripted jobs complete with 0 at their first poll.
  void script(const std::string& name, std::vector<int> exit_codes, int polls = 1) {
    scripts_[name] = {std::move(exit_codes), polls};
  }
  // Packed steps share these nodes (the local launcher's one node, or an allocation's).
  void set_pool(std::vector<launch::PoolNode> nodes) { pool_ = std::move(nodes); }

  std::vector<std::string> started;  // names, in the order they started
  std::vector<std::string> cancelled;
  std::map<std::string, plan::Env> env_of;                   // each started job's environment, by name
  std::map<std::string, std::vector<std::string>> nodes_of;  // the nodes each job was granted
  std::map<std::string, std::string> out_of_use;             // what lost_nodes() says
  size_t most_running = 0;                                   // the most jobs running at once
  bool refuse_start = false;                                 // start() throws EnvironmentError

  std::string name() const override { return "fake"; }
  std::vector<std::string> command(const plan::Step& step) const override {
    std::vector<std::string> argv{step.program->exe};
    argv.insert(argv.end(), step.program->args.begin(), step.program->args.end());
    return argv;
  }
  std::vector<launch::PoolNode> pool(const plan::Plan&) const override { return pool_; }
  bool packs(const plan::Step&) const override { return !pool_.empty(); }

  std::vector<launch::JobRef> start(std::span<const launch::LaunchRequest> requests) override {
    if (refuse_start) throw EnvironmentError("cannot start: the fake launcher was told to refuse");
    std::vector<launch::JobRef> refs;
    for (const auto& r : requests) {
      const std::string id = "f" + std::to_string(jobs_.size() + 1);
      const int attempt = attempts_[r.name]++;
      Job job{r.name, 1, 0, false, clock_.now()};
      if (const auto it = scripts_.find(r.name); it != scripts_.end()) {
        job.polls_left = it->second.polls;
        const auto& codes = it->second.exit_codes;
        job.exit_code = codes.empty() ? 0 : codes[std::min<size_t>(attempt, codes.size() - 1)];
      }
      jobs_[id] = job;
      started.push_back(r.name);
      env_of[r.name] = r.env;
      nodes_of[r.name] = r.nodes;
      refs.push_back({state::JobId::batch_job(id), r.name, r.run_dir});
    }
    count_running();
    return refs;
  }

  std::vector<launch::JobStatus> poll(std::span<const launch::JobRef> refs) override {
    std::vector<launch::JobStatus> out;
    for (const auto& ref : refs) {
      auto& job = jobs_.at(ref.id.job);
      launch::JobStatus s;
      s.start = job.start;
      if (job.cancelled) {
        s.status = state::Status::Cancelled;
        s.reason = "cancelled by ssim";
        s.end = clock_.now();
      } else if (job.polls_left > 0) {
        --job.polls_left;
        s.status = state::Status::Running;
      } else {
        s.exit_code = job.exit_code;
        s.status = job.exit_code == 0 ? state::Status::Completed : state::Status::Failed;
        if (job.exit_code != 0) s.reason = "exit code " + std::to_string(job.exit_code);
        s.end = clock_.now();
        job.ended = true;
      }
      out.push_back(s);
    }
    count_running();
    return out;
  }

  void cancel(std::span<const launch::JobRef> refs, bool) override {
    for (const auto& ref : refs) {
      auto& job = jobs_.at(ref.id.job);
      if (job.ended) continue;  // it ended on its own before the signal
      job.cancelled = true;
      cancelled.push_back(ref.name);
    }
  }
  int sweep(const std::string&) override { return 0; }
  // As a batch scheduler's launcher does: nodes go out of use (out_of_use).
  launch::BatchScheduling* scheduling() override { return this; }
  const launch::BatchScheduling* scheduling() const override { return this; }
  void set_log(Report) override {}
  void set_notes(Report) override {}
  int scheduler_queries() const override { return 0; }
  std::map<std::string, std::string> lost_nodes() const override { return out_of_use; }
  void set_queries_in_background(bool) override {}
  void finish() override {}

  // A job ends on its own now, before anyone polls it (exit code `code`).
  void end_now(const std::string& name, int code) {
    for (auto& [id, job] : jobs_)
      if (job.name == name && !job.cancelled) job.polls_left = 0, job.exit_code = code, job.ended = true;
  }

 private:
  struct Job {
    std::string name;
    int polls_left = 1;
    int exit_code = 0;
    bool cancelled = false;
    double start = 0;
    bool ended = false;
  };
  struct Script {
    std::vector<int> exit_codes;
    int polls = 1;
  };
  void count_running() {
    size_t running = 0;
    for (const auto& [id, job] : jobs_) running += !job.cancelled && !job.ended;
    most_running = std::max(most_running, running);
  }
  const FakeClock& clock_;
  std::map<std::string, Script> scripts_;
  std::map<std::string, int> attempts_;
  std::map<std::string, Job> jobs_;
  std::vector<launch::PoolNode> pool_;
};

}  // namespace ssim::test
