#pragma once
// One experiment in a line, for `ssim list` and the dashboard's side list: read from its
// manifest only (no scheduler query).
#include <nlohmann/json.hpp>
#include <string>

namespace ssim::session {

// {name, path, outcome (running | completed | failed | stopped | gone), created,
//  finished, counts {status: n} (entities, not the database), launcher}
nlohmann::json experiment_summary(const std::string& path);

}  // namespace ssim::session
