#include "launchers/ranks/rank_wrapper.hpp"

#include "lib/state/rank_ends.hpp"

namespace ssim::launchers {

std::vector<std::string> through_rank_wrapper(const std::string& supervisor, const plan::Step& step,
                                              const RankAddress& where, std::vector<std::string> program) {
  std::vector<std::string> argv = {supervisor, "--rank",
                                   "--size",   std::to_string(std::max(1, step.program->res.ntasks)),
                                   "--ends",   step.run_dir + "/" + state::kRankEndsFile};
  if (step.program->res.rank_env) {
    argv.insert(argv.end(), {"--master", step.run_dir + "/" + state::kRankZeroFile});
    // The entity's own choice (its env:, the last value of a name winning), told apart
    // from what the shell exported, which the wrapper replaces.
    std::string addr, port;
    if (step.shared_env)
      for (const auto& [k, v] : step.shared_env->from_file) {
        if (k == "MASTER_ADDR") addr = v;
        if (k == "MASTER_PORT") port = v;
      }
    if (!addr.empty()) argv.insert(argv.end(), {"--master-addr", addr});
    if (!port.empty()) argv.insert(argv.end(), {"--master-port", port});
    if (where.loopback)
      argv.push_back("--loopback");
    else if (!where.interface.empty())
      argv.insert(argv.end(), {"--interface", where.interface});
  } else {
    argv.push_back("--no-env");
  }
  if (step.program->res.gpus_per_task > 0)
    argv.insert(argv.end(), {"--gpus", std::to_string(step.program->res.gpus_per_task)});
  if (step.program->res.torchrun > 0)
    argv.insert(argv.end(), {"--torchrun", std::to_string(step.program->res.torchrun)});
  argv.push_back("--");
  argv.insert(argv.end(), std::make_move_iterator(program.begin()), std::make_move_iterator(program.end()));
  return argv;
}

}  // namespace ssim::launchers
