#pragma once
// ssim stop: stops the named entities or ensembles of the experiment at `path` (all when
// none are named) and leaves no process of it behind, whether the experiment's runner
// lives on this host, on another (a login node looking into a job), or is gone.
#include <functional>
#include <string>
#include <vector>

#include "lib/state/manifest.hpp"

namespace ssim::session {

// Returns the manifest as it stands after the stop. Throws UsageError for a name the
// experiment does not have, EnvironmentError when a runner elsewhere does not act on the
// request in time. `notes` hears what a person should know (may be empty).
state::Manifest stop(const std::string& path, const std::vector<std::string>& names,
                     const std::function<void(const std::string&)>& notes = {});

}  // namespace ssim::session
