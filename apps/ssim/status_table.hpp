#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>
#include <ostream>

#include "lib/state/lock.hpp"
#include "lib/state/manifest.hpp"

namespace ssim::app {

// One row per entity of `rows`: by default name, type, job id, status, exit code or
// signal, elapsed, nodes, parameters (when any), note; or the fields of `format`
// (status_format.hpp). Throws UsageError for a bad format.
void print_status_table(std::ostream& out, const std::vector<const state::EntityRecord*>& rows,
                        const std::string& format = "");
// Every entity, the default fields.
void print_status_table(std::ostream& out, const state::Manifest& m);
// The same as one JSON document (ssim status --json, ssim run --json).
nlohmann::json status_json(const state::Manifest& m, const std::optional<state::LockHolder>& runner);

}  // namespace ssim::app
