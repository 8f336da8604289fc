#include "lib/engine/run_outcome.hpp"

#include <map>

#include "lib/engine/engine.hpp"
#include "lib/engine/run_context.hpp"
#include "lib/launch/launcher.hpp"

namespace ssim::engine {

using state::Status;

int run_exit_code(const state::Manifest& m, bool environment_failed) {
  if (environment_failed) return 3;
  // A job the scheduler can never run: the environment failed, not the workflow.
  for (const auto& e : m.entities)
    if (e.status == Status::Failed && (e.reason.find(launch::kNeverRuns) != std::string::npos ||
                                       e.reason.find(launch::kSubmitRefused) != std::string::npos))
      return 3;
  for (const auto& e : m.entities) {
    // A persistent database is still running, and that is what was asked.
    if (is_database(e) && (e.status == Status::Running || e.status == Status::Completed)) continue;
    // ssim had to kill it at the end, after every entity had ended: a warning, not a failure.
    if (is_database(e) && e.reason.rfind(kStoppedAtEnd, 0) == 0) continue;
    if (is_outer_batch(e)) continue;
    if (e.status != Status::Completed || e.exit_code != 0) return 1;
  }
  return 0;
}

Tally tally_of(const state::Manifest& m) { return tally_of(state::summarise(m)); }

Tally tally_of(const state::StatusSummary& s) {
  Tally t;
  for (const auto& g : s.groups) {
    if (g.name == state::StatusSummary::kDatabaseGroup) continue;  // not an entity people wait for
    for (const auto& [status, n] : g.counts) t.counts[status] += n;
    if (g.name == state::StatusSummary::kModelsGroup) continue;
    Tally::Ensemble e{g.name, 0, g.total};
    for (const auto& [status, n] : g.counts) e.ended += state::is_terminal(status) ? n : 0;
    t.ensembles.push_back(e);
  }
  return t;
}

}  // namespace ssim::engine
