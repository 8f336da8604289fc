#include "lib/engine/goal_stops.hpp"

#include "lib/state/metrics.hpp"

namespace ssim::engine {

using state::Status;

void GoalStops::check(RunContext& run) {
  if (!checks_.due(run.clock.steady())) return;
  for (auto& e : run.m.entities) {
    if (e.status != Status::Running || !e.goal || !e.goal->stop || stopping_.count(e.name)) continue;
    auto reached = state::goal_reached(*e.goal, state::read_metrics(e), e.start);
    if (!reached) continue;
    if (reached->seconds < 0 && e.start > 0) reached->seconds = std::max(0.0, run.clock.now() - e.start);  // seen now
    e.extra_mut().reached = std::make_shared<const state::GoalReached>(*reached);
    stopping_.insert(e.name);
    const std::string what = state::goal_text(*e.goal) + " " + state::reached_text(reached);
    run.log.info("{}: goal {}; stopping it (stop_on_goal)", e.name, what);
    run.emit(text_event(EventKind::Info, e.name + " reached its goal: " + what + "; stopping it (stop_on_goal)"));
    run.stop(e);
    run.dirty = true;
  }
}

void GoalStops::settle(state::EntityRecord& r) {
  if (!state::is_terminal(r.status) || !stopping_.erase(r.name)) return;
  if (r.status != Status::Completed) {  // it may have ended on its own (exit 0 on SIGTERM) first
    r.status = Status::Completed;
    r.exit_code = 0;
    r.signal.reset();
  }
  r.reason =
      "stopped on reaching its goal (" + state::goal_text(*r.goal) + " " +
      state::reached_text(r.extra().reached ? std::optional<state::GoalReached>(*r.extra().reached) : std::nullopt) +
      ")";
}

}  // namespace ssim::engine
