#include "lib/launch/container_command.hpp"

#include <algorithm>
#include <filesystem>

namespace ssim::launch {

namespace fs = std::filesystem;
using plan::ContainerRuntime;

namespace {

void add_bind(std::vector<plan::Bind>& binds, const std::string& path, bool read_only) {
  if (path.empty()) return;
  for (const auto& b : binds)
    if (b.source == path && b.target == path) return;
  binds.push_back({path, path, read_only});
}

std::string bind_text(const plan::Bind& b, bool with_mode) {
  std::string text = b.source == b.target ? b.source : b.source + ":" + b.target;
  if (with_mode && b.read_only) text += (b.source == b.target ? ":" + b.target : "") + ":ro";
  return text;
}

}  // namespace

std::string experiment_dir_of(const plan::Step& step) {
  fs::path dir = fs::path(step.run_dir).parent_path();               // a model's run directory is EXPERIMENT/NAME
  if (step.kind == plan::StepKind::Member) dir = dir.parent_path();  // a member's EXPERIMENT/ENSEMBLE/NAME
  return dir.string();
}

ContainerMounts mounts_for(const plan::Step& step, const std::string& python_package) {
  // No file-system work here: it runs at every start of every member.
  ContainerMounts m;
  m.workdir = step.run_dir;
  add_bind(m.binds, experiment_dir_of(step), false);
  add_bind(m.binds, python_package, true);
  if (!step.program->container) return m;
  const plan::Container& c = *step.program->container;
  for (const auto& b : c.host_binds) add_bind(m.binds, b.source, b.read_only);
  m.binds.insert(m.binds.end(), c.binds.begin(), c.binds.end());
  m.gpus = step.program->res.gpus_per_task > 0;
  if (c.runtime == ContainerRuntime::Podman || c.runtime == ContainerRuntime::Docker)
    m.env = passed_names(step);  // the others pass the environment in themselves
  m.image_environment = c.image_environment;
  return m;
}

std::vector<std::string> passed_names(const plan::Step& step) {
  std::vector<std::string> names;
  auto add = [&](const std::string& n) {
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  };
  for (const auto& [k, v] : plan::launch_env(step, "", 1)) add(k);
  for (const char* n : {"RANK",
                        "WORLD_SIZE",
                        "LOCAL_RANK",
                        "LOCAL_WORLD_SIZE",
                        "MASTER_ADDR",
                        "MASTER_PORT",
                        "PET_NPROC_PER_NODE",
                        "PET_NNODES",
                        "PET_NODE_RANK",
                        "PET_MASTER_ADDR",
                        "PET_MASTER_PORT",
                        "PET_STANDALONE",
                        "CUDA_VISIBLE_DEVICES",
                        "ROCR_VISIBLE_DEVICES",
                        "HIP_VISIBLE_DEVICES",
                        "SSIM_RANK_GPUS",
                        "SSIM_EXPERIMENT_ID",
                        "SSIM_ATTEMPT",
                        "SSIM_AFTER_OK",
                        "SSIM_AFTER_FAILED",
                        "SSIM_CONNECT_TIMEOUT",
                        "SSIM_METRICS_LIMIT"})
    add(n);
  return names;
}

std::vector<std::string> database_container_words(const plan::Container& c, const std::string& shard_run_dir) {
  ContainerMounts m;
  m.workdir = shard_run_dir;
  m.binds.push_back({shard_run_dir, shard_run_dir, false});  // its configuration, its snapshot, its socket
  m.binds.insert(m.binds.end(), c.binds.begin(), c.binds.end());
  return container_command(c, m, {});
}

std::vector<std::string> container_command(const plan::Container& c, const ContainerMounts& m,
                                           const std::vector<std::string>& program) {
  std::vector<std::string> argv;
  const std::string exe = plan::runtime_program(c.runtime);
  switch (c.runtime) {
    case ContainerRuntime::Apptainer:
    case ContainerRuntime::Singularity:
      // The host's environment passes in by default; --pwd is where the program starts.
      argv = {exe, "exec", "--pwd", m.workdir};
      for (const auto& b : m.binds) argv.insert(argv.end(), {"--bind", bind_text(b, true)});
      if (m.gpus) argv.push_back("--nv");
      break;
    case ContainerRuntime::Charliecloud:
      // ch-run passes the environment, execs the program in its own process (signals
      // reach it), and binds /tmp by itself. No read-only binds.
      argv = {exe};
      for (const auto& b : m.binds) argv.push_back("--bind=" + bind_text(b, false));
      argv.push_back("--cd=" + m.workdir);
      if (m.image_environment) argv.push_back("--set-env");
      break;
    case ContainerRuntime::Podman:
    case ContainerRuntime::Docker:
      // No daemon-side copy survives it (--rm), the host's network (the database on
      // 127.0.0.1) and IPC (NCCL's shared memory), the program as PID 1's child (--init
      // reaps and passes signals), and only the named variables, never the host's PATH.
      argv = {exe, "run", "--rm", "--init", "--network=host", "--ipc=host", "-w", m.workdir};
      if (c.runtime == ContainerRuntime::Podman) argv.push_back("--userns=keep-id");
      for (const auto& b : m.binds) argv.insert(argv.end(), {"-v", bind_text(b, true)});
      for (const auto& n : m.env) argv.insert(argv.end(), {"-e", n});
      if (m.gpus && c.runtime == ContainerRuntime::Podman) argv.insert(argv.end(), {"--device", "nvidia.com/gpu=all"});
      if (m.gpus && c.runtime == ContainerRuntime::Docker) argv.insert(argv.end(), {"--gpus", "all"});
      break;
  }
  argv.insert(argv.end(), c.options.begin(), c.options.end());
  argv.push_back(c.image);
  if (c.runtime == ContainerRuntime::Charliecloud) argv.push_back("--");
  argv.insert(argv.end(), program.begin(), program.end());
  return argv;
}

}  // namespace ssim::launch
