#pragma once
// A container that never started its program: told apart from a program that failed by
// the runtime's own exit code and the shape of its message (apptainer's "FATAL:" and 255,
// podman's "Error:" and 125-127, ch-run's "ch-run[PID]: error:"), so that the entity's
// note is the runtime's words, not "exit code 255".
#include <optional>
#include <string>

#include "lib/plan/container.hpp"

namespace ssim::launch {

// "apptainer did not start it: FATAL: ..." when `stderr_tail` (the last lines the step
// wrote) and `exit_code` are the runtime's own failure, else nothing.
std::optional<std::string> container_start_failure(plan::ContainerRuntime runtime, int exit_code,
                                                   const std::string& stderr_tail);

}  // namespace ssim::launch
