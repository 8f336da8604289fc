#pragma once
// An entity's record from the manifest's JSON: from a parsed document (an older ssim's
// manifest, read whole), or straight from its line of text, field by field, without
// building the JSON document first (a 100,000-member manifest is 100,000 lines, and the
// document was most of what `ssim status` cost).
#include <string_view>

#include <nlohmann/json.hpp>

#include "lib/state/manifest.hpp"

namespace ssim::state {

// Throws nlohmann::json::exception when a field has the wrong type.
EntityRecord entity_from_json(const nlohmann::json& e);

// The same record from its text (one entity object); the same exceptions, and the same
// record as entity_from_json(json::parse(text)).
EntityRecord entity_from_text(std::string_view text);

}  // namespace ssim::state
