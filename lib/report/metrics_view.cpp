// Training metrics (docs/metrics.md): a chart per metric with one line per entity and
// rank against the step, the last value of each against every numeric parameter of an
// ensemble (a log2 axis for powers of two, as worker counts are), and a table comparing
// the members: parameters, last values and the goal.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "lib/report/html.hpp"
#include "lib/report/sections.hpp"

namespace ssim::report {

namespace {

constexpr size_t kMaxLines = 40;    // lines per chart; the rest are counted, not drawn
constexpr size_t kMaxPoints = 300;  // points per line (thinned evenly beyond)
const char* const kColours[] = {"#1565c0", "#c62828", "#2e7d32", "#f2a900", "#6a1b9a", "#00838f", "#ad1457", "#4e342e"};

struct Series {
  std::string label;                              // "sweep_3" or "train rank 1"
  std::vector<std::pair<double, double>> points;  // (step or order, value)
};

// Four significant digits: 0.0001234, 0.8123, 12345.
std::string axis_value(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

void line_chart(const std::string& metric, const std::vector<Series>& series, size_t total, std::string& out) {
  constexpr double W = 520, H = 180, L = 48, B = 16;
  double xlo = 1e300, xhi = -1e300, ylo = 1e300, yhi = -1e300;
  for (const auto& s : series)
    for (const auto& [x, y] : s.points) {
      xlo = std::min(xlo, x), xhi = std::max(xhi, x), ylo = std::min(ylo, y), yhi = std::max(yhi, y);
    }
  if (xlo > xhi) return;
  const double xs = std::max(xhi - xlo, 1e-9), ys = std::max(yhi - ylo, 1e-12);
  auto px = [&](double x) { return L + (x - xlo) / xs * (W - L - 4); };
  auto py = [&](double y) { return 4 + (yhi - y) / ys * (H - 8); };
  out += "<figure><svg class=\"chart\" width=\"" + number(W) + "\" height=\"" + number(H + B) + "\">";
  for (double f : {0.0, 0.5, 1.0}) {  // value gridlines with their values
    const double y = ylo + f * (yhi - ylo);
    out += "<line x1=\"" + number(L) + "\" y1=\"" + number(py(y)) + "\" x2=\"" + number(W) + "\" y2=\"" +
           number(py(y)) + "\" class=\"tick\"/><text x=\"" + number(L - 4) + "\" y=\"" + number(py(y) + 3) +
           "\" class=\"axis\" text-anchor=\"end\">" + escape(axis_value(y)) + "</text>";
  }
  out += "<text x=\"" + number(L) + "\" y=\"" + number(H + 13) + "\" class=\"axis\">step " + escape(number(xlo, 0)) +
         "</text><text x=\"" + number(W) + "\" y=\"" + number(H + 13) + "\" class=\"axis\" text-anchor=\"end\">" +
         escape(number(xhi, 0)) + "</text>";
  for (size_t i = 0; i < series.size(); ++i) {
    const auto& s = series[i];
    const std::string colour = kColours[i % (sizeof kColours / sizeof *kColours)];
    const std::string title = "<title>" + escape(s.label + ": last " + axis_value(s.points.back().second)) + "</title>";
    if (s.points.size() == 1) {
      out += "<circle cx=\"" + number(px(s.points[0].first)) + "\" cy=\"" + number(py(s.points[0].second)) +
             "\" r=\"3\" fill=\"" + colour + "\">" + title + "</circle>";
      continue;
    }
    std::string path;
    for (const auto& [x, y] : s.points) path += (path.empty() ? "M" : " L") + number(px(x)) + " " + number(py(y));
    out += "<path d=\"" + path + "\" fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"1.5\">" + title + "</path>";
  }
  out +=
      "</svg><figcaption>" + escape(metric) +
      (series.size() < total ? " (" + std::to_string(series.size()) + " of " + std::to_string(total) + " lines)" : "") +
      "</figcaption></figure>";
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
      "(docs/metrics.md), against the step; one line per entity and rank.</p>";
  for (const auto& g : groups) {
    // metric -> lines of this group's entities
    std::map<std::string, std::vector<Series>> charts;
    std::map<std::string, size_t> totals;
    std::map<std::string, std::map<const state::EntityRecord*, double>> last;  // metric -> entity -> last value
    for (const auto* e : g.entities) {
      const auto it = in.metrics.find(e->name);
      if (it == in.metrics.end()) continue;
      const state::MetricSeries& lines = it->second.series;
      std::set<std::string> ranked;
      for (const auto& [key, pts] : lines)
        if (key.second != 0) ranked.insert(key.first);
      for (const auto& [key, pts] : lines) {
        ++totals[key.first];
        if (key.second == 0 || key.first.empty()) last[key.first][e] = pts.back().second;
        auto& chart = charts[key.first];
        if (chart.size() >= kMaxLines) continue;
        chart.push_back({e->name + (ranked.count(key.first) ? " rank " + std::to_string(key.second) : ""),
                         state::thin_evenly(pts, kMaxPoints)});
      }
    }
    if (charts.empty()) continue;
    out += "<h3>" + escape(g.title) + "</h3><div class=\"scatters\">";
    for (const auto& [metric, series] : charts) line_chart(metric, series, totals[metric], out);
    out += "</div>";
    if (!g.ensemble) continue;
    // The last value against each numeric parameter.
    std::set<std::string> params;
    for (const auto* e : g.entities)
      for (const auto& [k, v] : e->params) params.insert(k);
    out += "<div class=\"scatters\">";
    for (const auto& param : params)
      for (const auto& [metric, values] : last) {
        std::vector<std::pair<double, double>> points;
        for (const auto& [e, y] : values) {
          const auto v = e->params.find(param);
          char* end = nullptr;
          const double x = v == e->params.end() ? 0 : std::strtod(v->second.c_str(), &end);
          if (v != e->params.end() && end && *end == '\0' && !v->second.empty()) points.emplace_back(x, y);
        }
        if (points.size() > 1) against_parameter(metric, param, points, out);
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
        const auto v = e->params.find(p);
        out += "<td>" + escape(v == e->params.end() ? "" : v->second) + "</td>";
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
  out += "</section>";
}

}  // namespace ssim::report
