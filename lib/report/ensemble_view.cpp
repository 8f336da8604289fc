// One ensemble's block: how long its members ran (a histogram and min/median/max), and
// its sweep: a table of every member's parameters with runtime and outcome, and runtime
// against each numeric parameter (the view users otherwise build by hand).
#include <algorithm>
#include <cstdlib>
#include <set>

#include "lib/report/html.hpp"
#include "lib/report/sections.hpp"

namespace ssim::report {

namespace {

bool numeric(const std::string& s, double& value) {
  if (s.empty()) return false;
  char* end = nullptr;
  value = std::strtod(s.c_str(), &end);
  return end && *end == '\0';
}

void histogram(const std::vector<double>& runtimes, std::string& out) {
  constexpr int kBins = 20;
  constexpr double W = 400, H = 90;
  const auto [lo, hi] = std::minmax_element(runtimes.begin(), runtimes.end());
  const double width = std::max(*hi - *lo, 1e-9);
  std::vector<int> bins(kBins, 0);
  for (double r : runtimes) bins[std::min(kBins - 1, static_cast<int>((r - *lo) / width * kBins))]++;
  const int top = *std::max_element(bins.begin(), bins.end());
  out += "<svg class=\"chart\" width=\"" + number(W) + "\" height=\"" + number(H + 16) + "\">";
  for (int i = 0; i < kBins; ++i) {
    if (!bins[i]) continue;
    const double h = H * bins[i] / top;
    out += "<rect x=\"" + number(i * W / kBins + 1) + "\" y=\"" + number(H - h) + "\" width=\"" +
           number(W / kBins - 2) + "\" height=\"" + number(h) + "\" fill=\"#1565c0\"><title>" +
           std::to_string(bins[i]) + " ran " + escape(duration_text(*lo + width * i / kBins)) + " to " +
           escape(duration_text(*lo + width * (i + 1) / kBins)) + "</title></rect>";
  }
  out += "<text x=\"0\" y=\"" + number(H + 13) + "\" class=\"axis\">" + escape(duration_text(*lo)) +
         "</text><text x=\"" + number(W) + "\" y=\"" + number(H + 13) + "\" class=\"axis\" text-anchor=\"end\">" +
         escape(duration_text(*hi)) + "</text></svg>";
}

void scatter(const std::string& param, const std::vector<std::pair<double, const state::EntityRecord*>>& points,
             double now, std::string& out) {
  constexpr double W = 400, H = 160, M = 4;
  double xlo = 1e300, xhi = -1e300, yhi = 0;
  for (const auto& [x, e] : points) {
    xlo = std::min(xlo, x);
    xhi = std::max(xhi, x);
    yhi = std::max(yhi, runtime_of(*e, now));
  }
  const double xs = std::max(xhi - xlo, 1e-9), ys = std::max(yhi, 1e-9);
  out += "<figure><svg class=\"chart\" width=\"" + number(W) + "\" height=\"" + number(H + 16) + "\">";
  out += "<line x1=\"0\" y1=\"" + number(H) + "\" x2=\"" + number(W) + "\" y2=\"" + number(H) + "\" class=\"tick\"/>";
  for (const auto& [x, e] : points) {
    const double r = runtime_of(*e, now);
    out += "<circle cx=\"" + number(M + (x - xlo) / xs * (W - 2 * M)) + "\" cy=\"" +
           number(H - M - r / ys * (H - 2 * M)) + "\" r=\"3\" fill=\"" + colour_of(e->status) + "\"><title>" +
           escape(e->name + ": " + param + " = " + number(x, 6) + ", " + duration_text(r)) + "</title></circle>";
  }
  out += "<text x=\"0\" y=\"" + number(H + 13) + "\" class=\"axis\">" + escape(number(xlo, 6)) + "</text><text x=\"" +
         number(W) + "\" y=\"" + number(H + 13) + "\" class=\"axis\" text-anchor=\"end\">" + escape(number(xhi, 6)) +
         "</text></svg><figcaption>runtime (up to " + escape(duration_text(yhi)) + ") against <b>" + escape(param) +
         "</b></figcaption></figure>";
}

}  // namespace

void ensemble_section(const ReportInput& in, const Group& g, std::string& out) {
  out += "<section class=\"ensemble\"><h3>" + escape(g.title) + "</h3>";
  std::vector<double> runtimes;
  for (const auto* e : g.entities)
    if (state::is_terminal(e->status) && runtime_of(*e, in.now) >= 0) runtimes.push_back(runtime_of(*e, in.now));
  if (runtimes.size() >= 2) {
    std::vector<double> sorted = runtimes;
    std::sort(sorted.begin(), sorted.end());
    double sum = 0;
    for (double r : sorted) sum += r;
    out += "<p>" + std::to_string(sorted.size()) + " ended: min " + escape(duration_text(sorted.front())) +
           ", median " + escape(duration_text(sorted[sorted.size() / 2])) + ", mean " +
           escape(duration_text(sum / static_cast<double>(sorted.size()))) + ", max " +
           escape(duration_text(sorted.back())) + "</p>";
    histogram(runtimes, out);
  }
  std::vector<std::string> params;  // in the order the first member has them
  std::set<std::string> seen;
  for (const auto* e : g.entities)
    for (const auto& [k, v] : e->extra().params)
      if (seen.insert(k).second) params.push_back(k);
  if (!params.empty()) {
    out += "<div class=\"scatters\">";
    for (const auto& p : params) {
      std::vector<std::pair<double, const state::EntityRecord*>> points;
      bool all_numeric = true;
      for (const auto* e : g.entities) {
        const auto it = e->extra().params.find(p);
        double x = 0;
        if (it == e->extra().params.end() || !numeric(it->second, x)) {
          all_numeric = false;
          break;
        }
        if (runtime_of(*e, in.now) >= 0) points.emplace_back(x, e);
      }
      // A parameter every member has the same value of (a port) says nothing about runtime.
      const bool varies =
          std::any_of(points.begin(), points.end(), [&](const auto& q) { return q.first != points.front().first; });
      if (all_numeric && points.size() >= 2 && varies) scatter(p, points, in.now, out);
    }
    out += "</div><details><summary>parameters of every member</summary><table class=\"params\"><tr><th>member</th>";
    for (const auto& p : params) out += "<th>" + escape(p) + "</th>";
    out += "<th>status</th><th>runtime</th></tr>";
    for (const auto* e : g.entities) {
      out += "<tr><td>" + escape(e->name) + "</td>";
      for (const auto& p : params) {
        const auto it = e->extra().params.find(p);
        out += "<td>" + (it == e->extra().params.end() ? std::string() : escape(it->second)) + "</td>";
      }
      const double r = runtime_of(*e, in.now);
      out += "<td class=\"s-" + state::to_string(e->status) + "\"" +
             (e->reason.empty() ? std::string() : " title=\"" + escape(e->reason) + "\"") + ">" +
             escape(state::to_string(e->status)) + "</td><td>" +
             (r >= 0 ? escape(duration_text(r)) : std::string("-")) + "</td></tr>";
    }
    out += "</table></details>";
  }
  out += "</section>";
}

}  // namespace ssim::report
