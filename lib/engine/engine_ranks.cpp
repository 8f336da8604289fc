// Ranks that failed while their step runs on (rank_watch.hpp): looked at once a second,
// for running entities of several ranks; their step is ended and the entity failed.
#include "lib/engine/engine.hpp"
#include "lib/state/rank_ends.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/split.hpp"

namespace ssim::engine {

using state::Status;

void Engine::check_rank_failures() {
  const auto now = clock_->steady();
  if (now < next_rank_check_) return;
  next_rank_check_ = now + std::chrono::seconds(1);
  for (size_t i : started_) {
    auto& e = m_.entities[i];
    if (e.status != Status::Running || rank_stopping_.count(e.name)) continue;
    const auto step = steps_.find(e.name);
    if (step == steps_.end() || step->second->res.ntasks <= 1) continue;
    const auto ends = state::read_rank_ends(e.run_dir);
    const int ranks = step->second->res.ntasks;
    if (static_cast<int>(ends.size()) >= ranks) continue;  // all ended: the launcher says the rest
    // Where it runs, by name, as ssim placed it (the scheduler may say "n[1-2]").
    auto nodes = split(where_it_runs(e), ',');
    if (nodes.empty()) nodes = split(e.nodes, ',');
    const auto reason = rank_watch_.verdict(e.name, ends, ranks, nodes, clock_->now());
    if (!reason) continue;
    log_->warn("{}: {}", e.name, *reason);
    emit(text_event(EventKind::Warning, e.name + ": a rank failed and its step ran on; ending it"));
    rank_stopping_[e.name] = *reason;
    const launch::JobRef ref = job_of(e);
    launcher_.cancel(std::span<const launch::JobRef>(&ref, 1), false);
    dirty_ = true;
  }
}

// Ended by ssim for a failed rank: failed (so retries run), with the ranks' reason.
void Engine::settle_rank_stop(state::EntityRecord& r) {
  rank_watch_.forget(r.name);
  const auto it = rank_stopping_.find(r.name);
  if (it == rank_stopping_.end()) return;
  if (r.status == Status::Cancelled || r.status == Status::Failed) {
    r.status = Status::Failed;
    r.reason = it->second;
    if (const auto first = state::first_failed_rank(state::read_rank_ends(r.run_dir))) {
      r.exit_code = first->signal ? std::nullopt : std::optional<int>(first->exit_code);
      r.signal = first->signal ? std::optional<int>(first->signal) : std::nullopt;
    }
  }
  rank_stopping_.erase(it);
}

}  // namespace ssim::engine
