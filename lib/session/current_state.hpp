#pragma once
#include <optional>
#include <string>

#include "lib/state/lock.hpp"
#include "lib/state/manifest.hpp"

namespace ssim::session {

struct CurrentState {
  state::Manifest manifest;
  std::optional<state::LockHolder> runner;  // the live ssim run or monitor, if any
  bool all_ended = false;
};

// The manifest refreshed from the launcher. When no ssim process tracks the experiment
// any more, entities it never started are recorded cancelled, and the refreshed
// manifest is saved (under the lock) so the next reader starts from it.
CurrentState current_state(const std::string& path);

}  // namespace ssim::session
