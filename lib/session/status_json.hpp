#pragma once
// The status document: `ssim status --json`, `ssim run --json` and the dashboard's
// /api/status (docs/cli.md lists its fields).
#include <functional>
#include <optional>
#include <ostream>

#include <nlohmann/json.hpp>

#include "lib/state/lock.hpp"
#include "lib/state/manifest.hpp"

namespace ssim::session {

nlohmann::json status_json(const state::Manifest& m, const std::optional<state::LockHolder>& runner);
// The same document as status_json(m, runner).dump(indent) (indent < 0: on one line),
// written an entity at a time (`keep`: which ones; all when empty), without the whole
// document in memory: 100,000 entities were a third of a GB and two seconds. `extra`:
// keys added to the document (after "entities" in order, as every key is).
void write_status_json(std::ostream& out, const state::Manifest& m, const std::optional<state::LockHolder>& runner,
                       int indent, const std::function<bool(const state::EntityRecord&)>& keep = {},
                       const nlohmann::json& extra = nlohmann::json::object());

}  // namespace ssim::session
