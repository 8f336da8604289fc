#pragma once
// The status document: `ssim status --json`, `ssim run --json` and the dashboard's
// /api/status (docs/cli.md lists its fields).
#include <optional>

#include <nlohmann/json.hpp>

#include "lib/state/lock.hpp"
#include "lib/state/manifest.hpp"

namespace ssim::session {

nlohmann::json status_json(const state::Manifest& m, const std::optional<state::LockHolder>& runner);

}  // namespace ssim::session
