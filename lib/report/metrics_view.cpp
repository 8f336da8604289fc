// Training metrics (docs/metrics.md): per group a chart per metric drawn by curves.js
// (a line per run coloured by the swept parameters, ranks as a mean and a band, step or
// wall-clock axis, log scale, smoothing, the goal), the last value against each swept
// numeric parameter of an ensemble (a log2 axis for powers of two, as worker counts
// are), and a table comparing the members: parameters, last values and the goal.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "lib/report/curves.hpp"
#include "lib/report/html.hpp"
#include "lib/report/sections.hpp"

namespace ssim::report {

namespace {

// Runs a chart draws (curves.js's MAX_RUNS): only theirs go in the file, which a sweep of
// thousands of members would otherwise fill with points nobody sees.
constexpr size_t kDrawnRuns = 40;

// Four significant digits: 0.0001234, 0.8123, 12345.
std::string axis_value(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

bool power_of_two(double v) { return v >= 1 && std::abs(std::exp2(std::round(std::log2(v))) - v) < 1e-9; }

// The last value of `metric` against a numeric parameter, one dot per member.
void against_parameter(const std::string& metric, const std::string& param,
                       const std::vector<std::pair<double, double>>& points, std::string& out) {
  constexpr double W = 260, H = 120, L = 44, M = 6;
  bool log2 = points.size() > 1;
  for (const auto& [x, y] : points) log2 = log2 && power_of_two(x);
  auto fx = [&](double x) { return log2 ? std::log2(x) : x; };
  double xlo = 1e300, xhi = -1e300, ylo = 1e300, yhi = -1e300;
  for (const auto& [x, y] : points)
    xlo = std::min(xlo, fx(x)), xhi = std::max(xhi, fx(x)), ylo = std::min(ylo, y), yhi = std::max(yhi, y);
  const double xs = std::max(xhi - xlo, 1e-9), ys = std::max(yhi - ylo, 1e-12);
  auto px = [&](double x) { return L + M + (fx(x) - xlo) / xs * (W - L - 2 * M); };
  auto py = [&](double y) { return M + (yhi - y) / ys * (H - 2 * M); };
  out += "<figure><svg class=\"chart\" width=\"" + number(W) + "\" height=\"" + number(H + 16) + "\">";
  out += "<text x=\"" + number(L - 4) + "\" y=\"" + number(py(yhi) + 3) + "\" class=\"axis\" text-anchor=\"end\">" +
         escape(axis_value(yhi)) + "</text><text x=\"" + number(L - 4) + "\" y=\"" + number(py(ylo) + 3) +
         "\" class=\"axis\" text-anchor=\"end\">" + escape(axis_value(ylo)) + "</text>";
  std::set<double> ticks;
  for (const auto& [x, y] : points) ticks.insert(x);
  for (double x : ticks)
    if (ticks.size() <= 12)
      out += "<text x=\"" + number(px(x)) + "\" y=\"" + number(H + 13) + "\" class=\"axis\" text-anchor=\"middle\">" +
             escape(number(x, 3)) + "</text>";
  for (const auto& [x, y] : points)
    out += "<circle cx=\"" + number(px(x)) + "\" cy=\"" + number(py(y)) + "\" r=\"3.5\" fill=\"#1565c0\"><title>" +
           escape(param + " = " + number(x, 6) + ": " + metric + " " + axis_value(y)) + "</title></circle>";
  out += "</svg><figcaption>last " + escape(metric) + " against " + escape(param) + (log2 ? " (log2 axis)" : "") +
         "</figcaption></figure>";
}

}  // namespace

void metrics_section(const ReportInput& in, const std::vector<Group>& groups, std::string& out) {
  if (in.metrics.empty()) return;
  out +=
      "<section id=\"metrics\"><h2>Metrics</h2><p class=\"quiet\">What the entities reported "
      "(docs/metrics.md): a line per run, coloured by the parameters that differ; a run's ranks as their mean "
      "with a band from the lowest to the highest.</p><noscript>The charts are drawn by the page's script, "
      "which is off here; the table below has every member's last values.</noscript>";
  size_t chart = 0;
  for (const auto& g : groups) {
    nlohmann::json series = nlohmann::json::array();
    std::vector<const state::EntityRecord*> reported;
    // metric -> entity -> last value, the ranks' mean as `ssim status` shows it
    std::map<std::string, std::map<const state::EntityRecord*, double>> last;
    for (const auto* e : g.entities) {
      const auto it = in.metrics.find(e->name);
      if (it == in.metrics.end() || it->second.curves.empty()) continue;
      reported.push_back(e);
      if (reported.size() <= kDrawnRuns) add_curves(*e, it->second.curves, series);
      for (const auto& [metric, value] : it->second.latest) last[metric][e] = value;
    }
    if (reported.empty()) continue;
    const std::string id = "curves-" + std::to_string(chart++);
    out +=
        "<h3>" + escape(g.title) + "</h3><div class=\"curves\" id=\"" + id +
        "\"></div><script type=\"application/json\" id=\"" + id + "-data\">" +
        script_json({{"series", std::move(series)}, {"goals", goals_json(reported)}, {"reported", reported.size()}}) +
        "</script>";
    if (!g.ensemble) continue;
    // The last value against each numeric parameter that differs between the members (a
    // port that is the same for every member says nothing).
    std::set<std::string> params;
    for (const auto* e : g.entities)
      for (const auto& [k, v] : e->extra().params) params.insert(k);
    out += "<div class=\"scatters\">";
    for (const auto& param : params)
      for (const auto& [metric, values] : last) {
        std::vector<std::pair<double, double>> points;
        std::set<double> distinct;
        for (const auto& [e, y] : values) {
          const auto v = e->extra().params.find(param);
          char* end = nullptr;
          const double x = v == e->extra().params.end() ? 0 : std::strtod(v->second.c_str(), &end);
          if (v != e->extra().params.end() && end && *end == '\0' && !v->second.empty())
            points.emplace_back(x, y), distinct.insert(x);
        }
        if (distinct.size() > 1) against_parameter(metric, param, points, out);
      }
    out += "</div>";
    // The members compared: parameters, last values, goal.
    out += "<details open><summary>every member's last values</summary><table class=\"params\"><tr><th>member</th>";
    for (const auto& p : params) out += "<th>" + escape(p) + "</th>";
    for (const auto& [metric, values] : last) out += "<th>" + escape(metric) + "</th>";
    const bool goals =
        std::any_of(g.entities.begin(), g.entities.end(), [](const auto* e) { return e->goal != nullptr; });
    if (goals) out += "<th>goal</th>";
    out += "</tr>";
    for (const auto* e : g.entities) {
      out += "<tr><td>" + escape(e->name) + "</td>";
      for (const auto& p : params) {
        const auto v = e->extra().params.find(p);
        out += "<td>" + escape(v == e->extra().params.end() ? "" : v->second) + "</td>";
      }
      for (const auto& [metric, values] : last) {
        const auto v = values.find(e);
        out += "<td>" + (v == values.end() ? std::string() : escape(axis_value(v->second))) + "</td>";
      }
      if (goals) {
        std::string text;
        if (e->goal) {
          const auto it = in.metrics.find(e->name);
          text = state::reached_text(it == in.metrics.end() ? state::goal_outcome(*e, {}) : it->second.goal);
        }
        out += "<td>" + escape(text) + "</td>";
      }
      out += "</tr>";
    }
    out += "</table></details>";
  }
  // The drawing code once, then each group's charts from its data.
  out += std::string("<script>") + curves_script() +
         "\ndocument.head.appendChild(Object.assign(document.createElement('style'), {textContent: "
         "ssimCurves.style}));\nfor (const box of document.querySelectorAll('div.curves')) "
         "ssimCurves.render(box, JSON.parse(document.getElementById(box.id + '-data').textContent));</script>";
  out += "</section>";
}

}  // namespace ssim::report
