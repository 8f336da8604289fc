#include "launchers/mpi_command.hpp"

#include "lib/launch/launcher.hpp"

#include <unistd.h>

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
  if (step.res.mpi != plan::MpiKind::Auto) return step.res.mpi;
  return step.res.ntasks > 1 ? plan::MpiKind::Mpirun : plan::MpiKind::None;
}

std::vector<std::string> local_command(const plan::Step& step, const HostFacts& host, const std::string& supervisor) {
  std::vector<std::string> argv;
  const plan::MpiKind mpi = local_mpi(step);
  if (mpi == plan::MpiKind::Mpirun || mpi == plan::MpiKind::Mpiexec) {
    argv = {mpi == plan::MpiKind::Mpirun ? "mpirun" : "mpiexec", "-np",
            std::to_string(step.res.ntasks)};
    if (host.is_root) argv.push_back("--allow-run-as-root");
    if (step.res.ntasks * std::max(1, step.res.cpus_per_task) > host.cores)
      argv.push_back("--oversubscribe");
    if (!step.res.hosts.empty()) {
      std::string hosts;
      for (const auto& h : step.res.hosts) hosts += (hosts.empty() ? "" : ",") + h;
      argv.insert(argv.end(), {"--host", hosts});
    }
    // Open MPI's mpirun takes "--key value", not "--key=value".
    for (const auto& [k, v] : step.res.launcher_args) {
      argv.push_back("--" + k);
      if (!v.empty()) argv.push_back(v);
    }
    if (step.res.gpus_per_task > 0)
      argv.insert(argv.end(), {supervisor, "--per-rank-gpus", std::to_string(step.res.gpus_per_task), "--"});
  }
  const auto program = task_program(step, supervisor);
  argv.insert(argv.end(), program.begin(), program.end());
  return argv;
}

}  // namespace ssim::launchers
