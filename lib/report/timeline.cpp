// The timeline: one bar per entity from its start to its end (or now), coloured by
// status, one foldable block per group. Rows shrink with the group's size so 5,000
// members stay one screen tall; every bar's <title> names it.
#include <algorithm>

#include "lib/report/html.hpp"
#include "lib/report/sections.hpp"

namespace ssim::report {

namespace {
constexpr double kLabel = 170, kWidth = 900;

// Labelled rows for small groups; big ones fit about 1,200 px (at least 1 px a row).
double row_height(size_t rows) { return rows > 60 ? std::max(1.0, 1200.0 / static_cast<double>(rows)) : 16; }
}  // namespace

void timeline_section(const ReportInput& in, const std::vector<Group>& groups, std::string& out) {
  double t0 = 0, t1 = 0;
  for (const auto& e : in.manifest.entities) {
    if (runtime_of(e, in.now) < 0) continue;
    t0 = t0 == 0 ? e.start : std::min(t0, e.start);
    t1 = std::max(t1, e.end > 0 ? e.end : in.now);
  }
  out += "<section id=\"timeline\"><h2>Timeline</h2>";
  if (t1 <= t0) {
    out += "<p class=\"quiet\">Nothing has started yet.</p></section>";
    return;
  }
  const double span = t1 - t0;
  out += "<p class=\"quiet\">From " + escape(date_time(t0)) + ", " + escape(duration_text(span)) +
         " across. Hover a bar for its entity.</p>";
  for (const auto& g : groups) {
    const double h = row_height(g.entities.size());
    const double height = h * static_cast<double>(g.entities.size()) + 18;
    out += std::string("<details class=\"group\"") + (g.entities.size() <= 2000 ? " open" : "") + "><summary>" +
           escape(g.title) + " <span class=\"quiet\">(" + std::to_string(g.entities.size()) + ")</span></summary>";
    out += "<svg class=\"timeline\" width=\"" + number(kLabel + kWidth) + "\" height=\"" + number(height) +
           "\" viewBox=\"0 0 " + number(kLabel + kWidth) + " " + number(height) + "\">";
    // Axis ticks at 0, 1/4, ... of the span.
    for (int i = 0; i <= 4; ++i) {
      const double x = kLabel + kWidth * i / 4.0;
      out += "<line x1=\"" + number(x) + "\" y1=\"0\" x2=\"" + number(x) + "\" y2=\"" + number(height - 14) +
             "\" class=\"tick\"/><text x=\"" + number(x) + "\" y=\"" + number(height - 3) +
             "\" class=\"axis\" text-anchor=\"" +
             (i == 0   ? "start"
              : i == 4 ? "end"
                       : "middle") +
             "\">" + escape(duration_text(span * i / 4.0)) + "</text>";
    }
    double y = 0;
    for (const auto* e : g.entities) {
      const double run = runtime_of(*e, in.now);
      if (h >= 12) {
        out += "<text x=\"0\" y=\"" + number(y + h - 4) + "\" class=\"label\">" + escape(e->name) + "</text>";
      }
      if (run >= 0) {
        const double x = kLabel + (e->start - t0) / span * kWidth;
        const double w = std::max(1.0, run / span * kWidth);
        out += "<rect x=\"" + number(x) + "\" y=\"" + number(y + (h >= 6 ? 1 : 0)) + "\" width=\"" + number(w) +
               "\" height=\"" + number(h >= 6 ? h - 2 : h) + "\" fill=\"" + colour_of(e->status) + "\"><title>" +
               escape(e->name + ": " + state::to_string(e->status) + ", " + duration_text(run)) + "</title></rect>";
      }
      y += h;
    }
    out += "</svg></details>";
  }
  out += "</section>";
}

}  // namespace ssim::report
