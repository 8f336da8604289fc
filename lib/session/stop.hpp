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
// A database shard whose snapshot cannot be saved (a full disk) is left running and is
// an EnvironmentError naming the cause; `save_database` false (--no-save) ends shards
// without a snapshot.
state::Manifest stop(const std::string& path, const std::vector<std::string>& names,
                     const std::function<void(const std::string&)>& notes = {}, bool save_database = true);

}  // namespace ssim::session
