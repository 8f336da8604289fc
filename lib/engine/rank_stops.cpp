#include "lib/engine/rank_stops.hpp"

#include "lib/state/rank_ends.hpp"
#include "lib/util/split.hpp"

namespace ssim::engine {

using state::Status;

void RankStops::check(RunContext& run, const std::vector<size_t>& live, const Where& where) {
  if (!checks_.due(run.clock.steady())) return;
  for (size_t i : live) {
    auto& e = run.m.entities[i];
    if (e.status != Status::Running || stopping_.count(e.name)) continue;
    const plan::Step* step = run.step(e.name);
    if (!step || step->program->res.ntasks <= 1) continue;
    const auto ends = state::read_rank_ends(e.run_dir);
    const int ranks = step->program->res.ntasks;
    if (static_cast<int>(ends.size()) >= ranks) continue;  // all ended: the launcher says the rest
    // Where it runs, by name, as ssim placed it (the scheduler may say "n[1-2]").
    auto nodes = split(where(e), ',');
    if (nodes.empty()) nodes = split(e.nodes, ',');
    const auto reason = watch_.verdict(e.name, ends, ranks, nodes, run.clock.now());
    if (!reason) continue;
    run.log.warn("{}: {}", e.name, *reason);
    run.emit(text_event(EventKind::Warning, e.name + ": a rank failed and its step ran on; ending it"));
    stopping_[e.name] = *reason;
    run.stop(e);
    run.dirty = true;
  }
}

void RankStops::settle(state::EntityRecord& r) {
  if (!state::is_terminal(r.status)) return;
  watch_.forget(r.name);
  const auto it = stopping_.find(r.name);
  if (it == stopping_.end()) return;
  if (r.status == Status::Cancelled || r.status == Status::Failed) {
    r.status = Status::Failed;
    r.reason = it->second;
    if (const auto first = state::first_failed_rank(state::read_rank_ends(r.run_dir))) {
      r.exit_code = first->signal ? std::nullopt : std::optional<int>(first->exit_code);
      r.signal = first->signal ? std::optional<int>(first->signal) : std::nullopt;
    }
  }
  stopping_.erase(it);
}

}  // namespace ssim::engine
