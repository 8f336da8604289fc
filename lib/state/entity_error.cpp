#include "lib/state/entity_error.hpp"

#include "lib/state/rank_ends.hpp"
#include "lib/state/setup_failure.hpp"
#include "lib/util/program_errors.hpp"

namespace ssim::state {

std::string entity_last_error(const std::string& run_dir, const std::string& name, int lines) {
  if (const auto setup = read_setup_failure(run_dir)) return describe(*setup);
  // Of several ranks, the one that failed first speaks (its own line, not its peers').
  const auto ends = read_rank_ends(run_dir);
  if (auto ranks = describe_rank_failure(ends); !ranks.empty()) return ranks;
  // One rank recorded, failed (the others were killed before they could say): its words,
  // not its MPI launcher's banner after them.
  if (ends.size() == 1 && !ends[0].clean() && !ends[0].said.empty()) return describe_rank_end(ends[0]);
  return last_program_lines(run_dir + "/" + name + ".err", lines);
}

}  // namespace ssim::state
