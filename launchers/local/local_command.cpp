#include "launchers/local/local_command.hpp"

#include "launchers/member_command.hpp"

#include "lib/launch/launcher.hpp"

#include <unistd.h>

#include <algorithm>
#include <thread>

namespace ssim::launchers {
using namespace ssim::launch;

HostFacts current_host() {
  HostFacts h;
  h.is_root = geteuid() == 0;
  h.cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return h;
}

plan::MpiKind local_mpi(const plan::Step& step) {
  if (step.program->res.mpi != plan::MpiKind::Auto) return step.program->res.mpi;
  return step.program->res.ntasks > 1 ? plan::MpiKind::Mpirun : plan::MpiKind::None;
}

std::vector<std::string> local_command(const plan::Step& step, const HostFacts& host, const std::string& supervisor) {
  MemberWrapping w;
  const plan::MpiKind mpi = local_mpi(step);
  if (mpi != plan::MpiKind::Mpirun && mpi != plan::MpiKind::Mpiexec) {
    if (step.program->res.torchrun > 0)
      w.rank_wrapper = RankAddress{true, ""};  // one torchrun here: PET_* from the wrapper
    return member_command(step, supervisor, w).argv;
  }
  // Every rank on this machine unless `hosts:` spreads them. A lone rank's wiring is in
  // its environment (plan::step_env).
  if (step.program->res.wrapped_ranks()) w.rank_wrapper = RankAddress{step.program->res.hosts.empty(), ""};
  w.launcher = mpi == plan::MpiKind::Mpirun ? RankLauncher::Mpirun : RankLauncher::Mpiexec;
  w.res = step.program->res;
  w.context.is_root = host.is_root;
  w.context.oversubscribe = step.program->res.ntasks * std::max(1, step.program->res.cpus_per_task) > host.cores;
  w.placement.nodes = step.program->res.hosts;  // `hosts:`, each with its share of the slots
  return member_command(step, supervisor, w).argv;
}

}  // namespace ssim::launchers
