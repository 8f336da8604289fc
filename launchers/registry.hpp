#pragma once
// The launchers this build has (local, Slurm, PBS, LSF), put in the launch layer's
// registry (lib/launch/registry.hpp). A new scheduler is a folder with its Scheduler
// plus one line in registry.cpp.
#include "lib/launch/registry.hpp"

namespace ssim::launchers {

// Adds every launcher to launch::launcher_registry(); once per program, before anything
// reads an experiment (repeating it is harmless).
void register_launchers();

}  // namespace ssim::launchers
