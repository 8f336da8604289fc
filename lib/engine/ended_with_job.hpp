#pragma once
// What ran inside a scheduler job ended with it. A reader (ssim status on the login
// node, ssim run --resume) after the run inside the job died: the entities' supervisors
// ran on the job's hosts, their status files still say running, and nothing will ever
// write their end. Once the scheduler says the job the manifest names (the allocation
// the run used, or the job it ran in) has ended, or no longer knows it, every entity not
// ended is recorded failed, "ended with its job".
#include "lib/launch/launcher.hpp"
#include "lib/state/manifest.hpp"

namespace ssim::engine {

// One scheduler query at most, and none when every entity has ended or the manifest
// names no job. Returns whether records changed.
bool end_with_their_job(state::Manifest& m, launch::Launcher& launcher);

}  // namespace ssim::engine
