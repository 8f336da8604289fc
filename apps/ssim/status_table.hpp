#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "lib/state/lock.hpp"
#include "lib/state/manifest.hpp"

namespace ssim::app {

// One row per entity: name, type, job id, status, exit code or signal, elapsed, note.
void print_status_table(std::ostream& out, const state::Manifest& m);
// The same as one JSON document (ssim status --json, ssim run --json).
nlohmann::json status_json(const state::Manifest& m, const std::optional<state::LockHolder>& runner);

}  // namespace ssim::app
