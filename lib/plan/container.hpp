#pragma once
// An entity's container, resolved from its `container:` (or experiment.container): the
// runtime, the image as a path or a name, and the user's own binds (docs/containers.md).
// Shared by an entity's steps. lib/launch/container_command.hpp turns it into the
// wrapper around the program.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lib/spec/spec.hpp"

namespace ssim::plan {

enum class ContainerRuntime { Apptainer, Singularity, Charliecloud, Podman, Docker };
std::string to_string(ContainerRuntime runtime);        // as written in container.runtime
std::string runtime_program(ContainerRuntime runtime);  // apptainer, singularity, ch-run, podman, docker

struct Bind {
  std::string source;  // on the host, absolute
  std::string target;  // inside, absolute
  bool read_only = false;
  bool operator==(const Bind&) const = default;
};

struct Container {
  ContainerRuntime runtime = ContainerRuntime::Apptainer;
  bool runtime_missing = false;  // runtime: auto, and none of them was found
  std::string image;             // absolute path, or the name as written
  bool image_is_path = false;
  bool image_environment = false;  // a Charliecloud directory image with /ch/environment (ch-run --set-env)
  // Host folders its entity's program needs, found once for all its members: an exe
  // written relative to the experiment file (its folder, read-only) and the folders of
  // its symlinked files (a file bound onto a target the image lacks fails in ch-run).
  std::vector<Bind> host_binds;
  std::vector<Bind> binds;  // the user's
  std::vector<std::string> options;
  std::string field;  // "models[0].container", for messages
  spec::Loc loc, image_loc;
};

// What the runtime needs in the environment of what starts it: ch-run refuses to start
// without $USER, which cron, CI and some batch systems leave unset.
std::vector<std::pair<std::string, std::string>> container_env(const Container& c);

// The runtimes in the order `auto` tries them.
const std::vector<ContainerRuntime>& auto_runtime_order();

// `c` resolved: relative paths against `base_dir`; `auto` the first of auto_runtime_order
// for which `installed` says yes.
Container resolve_container(const spec::Container& c, const std::string& base_dir,
                            const std::vector<ContainerRuntime>& installed);

// Container::host_binds for entity `e` (whose files resolve against `base_dir`).
std::vector<Bind> host_binds_of(const spec::Entity& e, const std::string& base_dir);

}  // namespace ssim::plan
