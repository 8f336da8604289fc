#pragma once
// ssim start: asks the run that tracks the experiment at `path` (ssim run --open, or a
// run with held entities) to start the named entities or ensembles: held ones start,
// ended ones run again as a new attempt, and names the run does not know yet are looked
// up in the experiment file, read again (entities added to it join the run).
#include <functional>
#include <string>
#include <vector>

#include "lib/state/manifest.hpp"

namespace ssim::session {

// Returns the manifest once the run has acted. Throws UsageError when no run tracks the
// experiment or the run refused (its one-line reason: an unknown name, a bad file),
// EnvironmentError when the run does not answer in time.
state::Manifest start(const std::string& path, const std::vector<std::string>& names);

}  // namespace ssim::session
