#include "apps/ssim/cli_options.hpp"

#include <string>

#include "lib/session/load.hpp"

namespace ssim::app {
using namespace ssim::session;

void add_max_members_option(CLI::App& cmd) {
  cmd.add_option(
         "--max-members", session::parse_options().max_members,
         "the most ensemble members an experiment may have (default " + std::to_string(spec::kDefaultMaxMembers) + ")")
      ->check(CLI::PositiveNumber);
}

}  // namespace ssim::app
