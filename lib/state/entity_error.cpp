#include "lib/state/entity_error.hpp"

#include "lib/state/rank_ends.hpp"
#include "lib/state/setup_failure.hpp"
#include "lib/util/program_errors.hpp"

namespace ssim::state {

std::string entity_last_error(const std::string& run_dir, const std::string& name, int lines) {
  if (const auto setup = read_setup_failure(run_dir)) return describe(*setup);
  // Of several ranks, the one that failed first speaks (its own line, not its peers').
  if (auto ranks = describe_rank_failure(read_rank_ends(run_dir)); !ranks.empty()) return ranks;
  return last_program_lines(run_dir + "/" + name + ".err", lines);
}

}  // namespace ssim::state
