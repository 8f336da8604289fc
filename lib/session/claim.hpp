#pragma once
// Taking an experiment directory for one ssim process before anything is generated, so
// that two `ssim run` of one file at the same moment cannot both write it: a new
// experiment is claimed by creating <path>/.ssim (mkdir is atomic: exactly one wins),
// an existing one by its flock. The loser gets exit 2 (UsageError) and has written
// nothing.
#include <string>

#include "lib/generate/generate.hpp"
#include "lib/plan/plan.hpp"
#include "lib/state/lock.hpp"
#include "lib/state/manifest.hpp"

namespace ssim::session {

// Checks the target (generate::check_target) and returns the held run lock.
state::RunLock claim_experiment(const plan::Plan& plan, generate::Existing mode, const std::string& role);

// generate::generate on a claimed directory; a new experiment whose generation failed
// leaves nothing behind.
generate::GenerateResult generate_claimed(const plan::Plan& plan, generate::Existing mode);

// --resume after a crash of ssim: the earlier run's entities (and its database) may
// still run. Starting them again would run them twice, and a new database could not
// have the port; refuse (exit 2) and say how to end them. A database left running by
// `persist: true` is not refused: the resumed run reuses it. Refreshes `previous`.
void refuse_if_still_alive(state::Manifest& previous, const plan::Plan& plan);

}  // namespace ssim::session
