#pragma once
// Training curves, shared by the report and the dashboard: curves_json gives what
// lib/report/curves.js draws (one chart per metric, a line per run coloured by the
// parameters that differ, ranks folded into a mean and a min-max band).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/state/manifest.hpp"
#include "lib/state/metrics.hpp"

namespace ssim::report {

// Appends each (metric, rank) of `e` to `series`: {entity, metric, rank, params, points:
// [[step, value, seconds since it started], ...]} (null for a value or time not known).
void add_curves(const state::EntityRecord& e, const state::CurveSeries& curves, nlohmann::json& series);

// {METRIC: {target, at_least}}: the goals of `entities`, the first one of each metric.
nlohmann::json goals_json(const std::vector<const state::EntityRecord*>& entities);

// The drawing code (curves.js): defines ssimCurves.render(container, doc).
const char* curves_script();

// `doc` as text that may sit in a <script> element ("</" written "<\/").
std::string script_json(const nlohmann::json& doc);

}  // namespace ssim::report
