// stop_on_goal (docs/metrics.md): a running entity whose goal says so is stopped once
// its metrics reach the goal, and then counts as completed, with when it got there.
#include "lib/engine/engine.hpp"
#include "lib/engine/refresh.hpp"
#include "lib/state/metrics.hpp"

namespace ssim::engine {

using state::Status;

void Engine::check_goals() {
  const auto now = clock_->steady();
  if (now < next_goal_check_) return;
  next_goal_check_ = now + std::chrono::seconds(1);  // metrics are written about every second
  for (auto& e : m_.entities) {
    if (e.status != Status::Running || !e.goal || !e.goal->stop || goal_stopping_.count(e.name)) continue;
    auto reached = state::goal_reached(*e.goal, state::read_metrics(e), e.start);
    if (!reached) continue;
    if (reached->seconds < 0 && e.start > 0) reached->seconds = std::max(0.0, clock_->now() - e.start);  // seen now
    e.reached = std::make_shared<const state::GoalReached>(*reached);
    goal_stopping_.insert(e.name);
    const std::string what = state::goal_text(*e.goal) + " " + state::reached_text(reached);
    log_->info("{}: goal {}; stopping it (stop_on_goal)", e.name, what);
    emit(text_event(EventKind::Info, e.name + " reached its goal: " + what + "; stopping it (stop_on_goal)"));
    const launch::JobRef ref = job_of(e);
    launcher_.cancel(std::span<const launch::JobRef>(&ref, 1), false);
    dirty_ = true;
  }
}

// Stopped by ssim because it got where it was going: a success, whatever the signal.
void Engine::settle_goal_stop(state::EntityRecord& r) {
  goal_stopping_.erase(r.name);
  if (r.status != Status::Completed) {  // it may have ended on its own (exit 0 on SIGTERM) first
    r.status = Status::Completed;
    r.exit_code = 0;
    r.signal.reset();
  }
  r.reason = "stopped on reaching its goal (" + state::goal_text(*r.goal) + " " +
             state::reached_text(r.reached ? std::optional<state::GoalReached>(*r.reached) : std::nullopt) + ")";
}

}  // namespace ssim::engine
