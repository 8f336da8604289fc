// The database over the run: per shard, used memory, connected clients, operations per
// second and keys, from the samples the engine took every few seconds.
#include <algorithm>
#include <map>

#include "lib/report/html.hpp"
#include "lib/report/sections.hpp"

namespace ssim::report {

namespace {

struct Point {
  double t, v;
};

std::string amount(double v, const std::string& unit) {
  if (unit == "B") {
    if (v >= 1 << 30) return number(v / (1 << 30), 2) + " GiB";
    if (v >= 1 << 20) return number(v / (1 << 20), 1) + " MiB";
    return number(v / 1024, 0) + " KiB";
  }
  return number(v, 0) + unit;
}

void line_chart(const std::string& title, const std::vector<Point>& points, const std::string& unit, double t0,
                double t1, std::string& out) {
  constexpr double W = 260, H = 80;
  double top = 0;
  for (const auto& p : points) top = std::max(top, p.v);
  const double span = std::max(t1 - t0, 1e-9), scale = top > 0 ? top : 1;
  std::string path;
  for (const auto& p : points)
    path += (path.empty() ? "M" : " L") + number((p.t - t0) / span * W) + " " + number(H - p.v / scale * (H - 4));
  out += "<figure><svg class=\"chart\" width=\"" + number(W) + "\" height=\"" + number(H) + "\"><line x1=\"0\" y1=\"" +
         number(H) + "\" x2=\"" + number(W) + "\" y2=\"" + number(H) + "\" class=\"tick\"/>";
  if (points.size() == 1)
    out += "<circle cx=\"" + number((points[0].t - t0) / span * W) + "\" cy=\"" +
           number(H - points[0].v / scale * (H - 4)) + "\" r=\"3\" fill=\"#1565c0\"/>";
  else
    out += "<path d=\"" + path + "\" fill=\"none\" stroke=\"#1565c0\" stroke-width=\"1.5\"/>";
  out += "</svg><figcaption>" + escape(title) + ": last " + escape(amount(points.back().v, unit)) + ", peak " +
         escape(amount(top, unit)) + "</figcaption></figure>";
}

}  // namespace

void database_section(const ReportInput& in, std::string& out) {
  std::map<std::string, std::vector<const nlohmann::json*>> by_shard;
  double t0 = 0, t1 = 0;
  for (const auto& s : in.db_samples) {
    const double t = s.value("time", 0.0);
    if (t <= 0) continue;
    by_shard[s.value("shard", "?")].push_back(&s);
    t0 = t0 == 0 ? t : std::min(t0, t);
    t1 = std::max(t1, t);
  }
  if (by_shard.empty()) return;
  out += "<section id=\"database\"><h2>Database</h2><p class=\"quiet\">Sampled every few seconds over " +
         escape(duration_text(t1 - t0)) + ".</p>";
  for (const auto& [shard, samples] : by_shard) {
    auto series = [&](const char* field) {
      std::vector<Point> p;
      for (const auto* s : samples) p.push_back({s->value("time", 0.0), s->value(field, 0.0)});
      return p;
    };
    out += "<h3>" + escape(shard) + "</h3><div class=\"scatters\">";
    line_chart("used memory", series("used_memory"), "B", t0, t1, out);
    line_chart("clients", series("connected_clients"), "", t0, t1, out);
    line_chart("operations per second", series("ops_per_sec"), "", t0, t1, out);
    line_chart("keys", series("keys"), "", t0, t1, out);
    out += "</div>";
  }
  out += "</section>";
}

}  // namespace ssim::report
