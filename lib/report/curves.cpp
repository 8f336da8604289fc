#include "lib/report/curves.hpp"

#include <cmath>

#include "curves_js.hpp"

namespace ssim::report {

void add_curves(const state::EntityRecord& e, const state::CurveSeries& curves, nlohmann::json& series) {
  const nlohmann::json params(e.extra().params);
  for (const auto& [key, line] : curves) {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : line)
      points.push_back(
          {p.x, std::isfinite(p.value) ? nlohmann::json(p.value) : nlohmann::json(),
           std::isfinite(p.seconds) ? nlohmann::json(std::round(p.seconds * 1000) / 1000) : nlohmann::json()});
    series.push_back({{"entity", e.name},
                      {"metric", key.first},
                      {"rank", key.second},
                      {"params", params},
                      {"points", std::move(points)}});
  }
}

nlohmann::json goals_json(const std::vector<const state::EntityRecord*>& entities) {
  nlohmann::json goals = nlohmann::json::object();
  for (const auto* e : entities)
    if (e->goal && !goals.contains(e->goal->metric))
      goals[e->goal->metric] = {{"target", e->goal->target}, {"at_least", e->goal->at_least}};
  return goals;
}

const char* curves_script() { return kCurvesJs; }

std::string script_json(const nlohmann::json& doc) {
  const std::string text = doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') {
      out += "<\\/";
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace ssim::report
