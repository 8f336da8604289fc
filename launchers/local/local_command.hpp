#pragma once
// The command line of a step on the local launcher: the program, or mpirun / mpiexec
// (rank_command.hpp's builder, as inside a job).
#include <string>
#include <vector>

#include "lib/plan/plan.hpp"

namespace ssim::launchers {

struct HostFacts {
  bool is_root = false;
  int cores = 1;
};
HostFacts current_host();

// The MPI launcher a step uses on the local launcher: `auto` means mpirun when more
// than one task is asked for, a plain process otherwise.
plan::MpiKind local_mpi(const plan::Step& step);

// The argv that starts `step` on this machine: the program itself, or
// `mpirun -np N [flags] exe args...`. Open MPI refuses to run as root without
// --allow-run-as-root, and refuses more ranks than cores without --oversubscribe;
// `hosts:` become --host with each host's slots.
// `supervisor`: under mpirun, each rank starts through `SUPERVISOR --rank ... --`
// (launchers/ranks/rank_wrapper.hpp): its RANK, MASTER_ADDR..., its own GPUs, its end.
std::vector<std::string> local_command(const plan::Step& step, const HostFacts& host,
                                       const std::string& supervisor = "ssim-supervise");

}  // namespace ssim::launchers
