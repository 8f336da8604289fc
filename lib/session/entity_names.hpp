#pragma once
// How the verbs read the entity names a user types: one rule for "does NAME select this
// entity" and one refusal that helps (the members of an ensemble, the closest name).
#include <string>
#include <vector>

#include "lib/state/manifest.hpp"

namespace ssim::session {

// Throws UsageError (exit 2) for each name that selects nothing, saying what helps:
// the closest entity or ensemble name ("did you mean run_1?").
void refuse_unknown_names(const state::Manifest& m, const std::vector<std::string>& names);

// The entity named exactly `name` (not an ensemble: a verb about one entity's files).
// UsageError otherwise, naming an ensemble's members or the closest name.
const state::EntityRecord& one_entity(const state::Manifest& m, const std::string& name);

}  // namespace ssim::session
