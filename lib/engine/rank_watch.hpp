#pragma once
// Ranks that failed while their step runs on: ssim's own records of ranks decide, not
// the launcher's patience. When a node dies under a multi-node trainer, the ranks left
// record their failure within a second ("Connection closed by peer"), but srun waits for
// Slurm's node timeout (minutes) before the step ends, and the entity would read
// `running` all that time. Once a rank has recorded a failure and the step still runs
// `grace` seconds later, the watch says to end the step, with the reason the entity
// fails with: the rank that failed first, and the nodes none of whose ranks recorded an
// end (a lost node). The engine ends the step and records the entity failed, so retries
// run. No I/O: the engine reads the records and applies the verdict.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lib/state/rank_ends.hpp"

namespace ssim::engine {

// How long a step may run on after one of its ranks failed: an MPI launcher ends the
// others in well under a second; a DDP rank that failed is never waited for by its peers.
inline constexpr double kRankFailureGrace = 10;

class RankWatch {
 public:
  explicit RankWatch(double grace = kRankFailureGrace) : grace_(grace) {}

  // `ends`: the step's rank records so far; `ranks`: how many it has; `nodes`: where it
  // runs; `now`: seconds (any clock, the same every call). The reason to end the step
  // with, once a failure has stood `grace` seconds; nullopt meanwhile.
  std::optional<std::string> verdict(const std::string& name, const std::vector<state::RankEnd>& ends, int ranks,
                                     const std::vector<std::string>& nodes, double now);
  // The step ended (or was ended): its watch starts afresh for a next attempt.
  void forget(const std::string& name) { failing_since_.erase(name); }

 private:
  double grace_;
  std::map<std::string, double> failing_since_;  // entity -> when ssim first saw a failed rank
};

// "rank 1 failed first (exit 1, on n1): boom; ranks 2, 3 never ended (no rank on n2
// recorded an end: the node may be lost); ssim ended the step 10 s after the first failure"
std::string describe_ranks_left_running(const std::vector<state::RankEnd>& ends, int ranks,
                                        const std::vector<std::string>& nodes, double grace);

}  // namespace ssim::engine
