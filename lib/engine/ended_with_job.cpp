#include "lib/engine/ended_with_job.hpp"

#include "lib/launch/job_allocation.hpp"
#include "lib/util/clock.hpp"

namespace ssim::engine {

using state::Status;

bool end_with_their_job(state::Manifest& m, launch::Launcher& launcher) {
  if (m.allocation_job.empty()) return false;
  auto left = [](const state::EntityRecord& e) {
    return e.type != state::EntityKind::Batch && !e.job_id.empty() && !state::is_terminal(e.status);
  };
  bool any = false;
  for (const auto& e : m.entities) any = any || left(e);
  if (!any) return false;
  const launch::JobAllocation* allocation = launcher.allocation();
  if (!allocation) return false;
  const auto ended = allocation->ended_job(m.allocation_job);
  if (!ended) return false;
  const double at = ended->at > 0 ? ended->at : now_seconds();
  for (auto& e : m.entities) {
    if (!left(e)) continue;
    e.status = Status::Failed;
    e.reason = "ended with its job: " + ended->reason;
    if (e.end == 0) e.end = at;
  }
  return true;
}

}  // namespace ssim::engine
