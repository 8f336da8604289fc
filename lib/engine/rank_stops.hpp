#pragma once
// Ranks that failed while their step runs on (rank_watch.hpp): looked at once a second,
// for running entities of several ranks; their step is ended and the entity recorded
// failed with the ranks' own reason.
#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "lib/engine/rank_watch.hpp"
#include "lib/engine/run_context.hpp"
#include "lib/util/every.hpp"

namespace ssim::engine {

class RankStops {
 public:
  // Where an entity runs, by node names as ssim placed it ("" when the scheduler decides).
  using Where = std::function<std::string(const state::EntityRecord&)>;
  // Looks at the running entities among `live` (indexes into the manifest).
  void check(RunContext& run, const std::vector<size_t>& live, const Where& where);
  // `r` ended: ended by ssim for a failed rank, it is failed (so retries run) with the
  // ranks' reason and the first failed rank's exit.
  void settle(state::EntityRecord& r);

 private:
  RankWatch watch_;
  Every checks_{std::chrono::seconds(1)};
  std::map<std::string, std::string> stopping_;  // entity -> the reason it fails with
};

}  // namespace ssim::engine
