#pragma once
// The container wrapper of a member's command line: `program` run inside its entity's
// image by the runtime, the innermost wrapper (docs/containers.md "The command line"):
//   setup -> rank launcher -> step recorder -> rank wrapper -> colocated database ->
//   CONTAINER -> program
// Everything outside it runs on the host: the rank wrapper's RANK, MASTER_ADDR... and
// ssim's variables reach the program through the runtime's environment.
#include <string>
#include <vector>

#include "lib/plan/plan.hpp"

namespace ssim::launch {

// What ssim gives a containerised program besides the user's binds.
struct ContainerMounts {
  std::string workdir;             // the run directory, bound and made the working directory
  std::vector<plan::Bind> binds;   // ssim's own, then the user's (later ones mount over)
  bool gpus = false;               // the step asks for GPUs: the runtime's GPU switch
  std::vector<std::string> env;    // names passed in (podman, docker: the others pass all)
  bool image_environment = false;  // charliecloud: the image's /ch/environment is applied
};

// The experiment directory a step's run directory is in: bound whole (one mount point
// for every member, and the other entities' outputs are where the host has them).
std::string experiment_dir_of(const plan::Step& step);

// The folders a step's program needs inside, at the same paths as on the host: the
// experiment directory (the run directory the working directory), ssim's Python package,
// the entity's host folders (plan::Container::host_binds), then the user's binds.
ContainerMounts mounts_for(const plan::Step& step, const std::string& python_package);

// The variables a program in a container must be handed by name where the runtime
// passes none by itself (podman, docker): ssim's, the rank wiring's, the devices'.
std::vector<std::string> passed_names(const plan::Step& step);

// What a database shard's server starts through in orchestrator.container: the runtime's
// words up to the image (and ch-run's `--`), its run directory bound and the working one.
std::vector<std::string> database_container_words(const plan::Container& c, const std::string& shard_run_dir);

// `program` inside `c`, as the runtime's documented command line spells it.
std::vector<std::string> container_command(const plan::Container& c, const ContainerMounts& m,
                                           const std::vector<std::string>& program);

}  // namespace ssim::launch
