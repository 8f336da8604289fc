#include "lib/launch/container_failure.hpp"

#include <vector>

#include "lib/util/split.hpp"

namespace ssim::launch {

using plan::ContainerRuntime;

namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// The line of the runtime's own, for each runtime.
bool runtime_line(ContainerRuntime runtime, const std::string& line) {
  switch (runtime) {
    case ContainerRuntime::Apptainer:
    case ContainerRuntime::Singularity:
      return starts_with(line, "FATAL:");
    case ContainerRuntime::Podman:
      return starts_with(line, "Error: ");
    case ContainerRuntime::Docker:
      return starts_with(line, "docker: ") || starts_with(line, "Error");
    case ContainerRuntime::Charliecloud:
      return starts_with(line, "ch-run[") && line.find("]: error: ") != std::string::npos;
  }
  return false;
}

bool runtime_exit(ContainerRuntime runtime, int exit_code) {
  switch (runtime) {
    case ContainerRuntime::Apptainer:
    case ContainerRuntime::Singularity:
      return exit_code == 255;
    case ContainerRuntime::Podman:
    case ContainerRuntime::Docker:
      return exit_code >= 125 && exit_code <= 127;
    case ContainerRuntime::Charliecloud:
      return exit_code == 1;  // ch-run's own errors end it with 1
  }
  return false;
}

}  // namespace

std::optional<std::string> container_start_failure(ContainerRuntime runtime, int exit_code,
                                                   const std::string& stderr_tail) {
  if (!runtime_exit(runtime, exit_code)) return std::nullopt;
  const std::vector<std::string> lines = split(stderr_tail, '\n');
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (runtime_line(runtime, *it)) return plan::runtime_program(runtime) + " did not start it: " + *it;
  return std::nullopt;
}

}  // namespace ssim::launch
