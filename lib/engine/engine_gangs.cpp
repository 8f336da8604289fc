// Gangs (`gang: true`): members that wait for each other by design. One that fails for
// good before the rest are done ends them, cancelled with its name and words, rather than
// leaving them waiting for a peer that will never come (until run.time, or for ever).
#include "lib/engine/engine.hpp"
#include "lib/engine/stop.hpp"
#include "lib/state/entity_error.hpp"

namespace ssim::engine {

using state::Status;

bool Engine::end_gangs_of_failed(const std::vector<std::string>& ended) {
  bool changed = false;
  for (const auto& name : ended) {
    const auto* failed = m_.find(name);
    if (!failed || failed->status != Status::Failed || !live_.ended_for_good(*failed)) continue;
    const auto mates = schedule_.gang_mates_left(m_, name);
    if (mates.empty()) continue;
    std::string why = state::entity_last_error(failed->run_dir, failed->name, 1);
    if (why.empty()) why = failed->reason;
    const std::string gang = failed->ensemble;
    const std::string reason = name + " of gang " + gang + " failed" + (why.empty() ? "" : ": " + why);
    log_->info("{}: ending the rest of gang {} ({} members)", name, gang, mates.size());
    std::vector<Status> before;
    for (const auto& mate : mates) before.push_back(m_.find(mate)->status);
    stop_entities(m_, launcher_, mates, reason, kStopGrace, *clock_, *db_);
    for (size_t i = 0; i < mates.size(); ++i) {
      auto& e = *m_.find(mates[i]);
      if (e.status == Status::Failed && e.attempt <= steps_.find(e.name)->program->retries) {
        e.status = Status::Cancelled;  // its retries end with the gang
        e.reason = reason;
      }
      if (e.status != before[i]) emit(entity_event(e.name, to_string(e.type), e.status, e.exit_code, e.reason));
    }
    live_.make_anew();
    changed = true;
  }
  if (changed) saver_.save(ctx_);
  return changed;
}

}  // namespace ssim::engine
