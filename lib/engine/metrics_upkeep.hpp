#pragma once
// Metrics while a run goes (docs/metrics.md): what lone programs print is stamped about
// once a second (printed_metrics.hpp); files stay bounded ("How much is kept"): the
// running entities' files are looked at every 5 s, and an entity's once more when it
// ends after running a second or more (a shorter one cannot have written much; skipping
// it keeps 10^5 short members from costing a directory read each). Points a writer could
// not write (a full disk) are said when the entity ends: in its note, ssim.log and the
// run's output.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/engine/printed_metrics.hpp"
#include "lib/engine/run_context.hpp"
#include "lib/util/every.hpp"

namespace ssim::engine {

class MetricsUpkeep {
 public:
  // About once a second: what the running one-rank entities among `live` printed.
  void stamp(RunContext& run, const std::vector<size_t>& live);
  // Every 5 s: the running entities' files thinned past the limit.
  void bound(RunContext& run);
  // `e` ended: its last printed lines, its files bounded, its lost points said.
  void ended(RunContext& run, const state::EntityRecord& e);

 private:
  std::uintmax_t limit(RunContext& run);  // SSIM_METRICS_LIMIT; a bad one said once
  void bound_files(RunContext& run, const state::EntityRecord& e, const std::vector<std::string>& files);
  void say_lost(RunContext& run, const std::string& name, const std::vector<std::string>& lost_files);

  PrintedMetrics printed_;
  Every stamps_{std::chrono::seconds(1)};
  Every bounds_{std::chrono::seconds(5)};
};

}  // namespace ssim::engine
