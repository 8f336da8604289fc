#include "lib/report/report.hpp"

#include <map>

#include "lib/report/html.hpp"
#include "lib/report/sections.hpp"

namespace ssim::report {

namespace {

constexpr const char* kStyle = R"(
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1120px; color: #222; padding: 0 16px; }
h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #ddd; }
h3 { font-size: 15px; margin-bottom: 4px; }
.quiet { color: #666; } .chips span { display: inline-block; padding: 2px 10px; margin: 2px 6px 2px 0;
  border-radius: 12px; color: #fff; font-weight: 600; }
dl.facts { display: grid; grid-template-columns: max-content auto; gap: 2px 16px; }
dl.facts dt { color: #666; } dl.facts dd { margin: 0; }
details.group { margin: 6px 0; } summary { cursor: pointer; font-weight: 600; }
svg text.label { font-size: 11px; } svg text.axis { font-size: 10px; fill: #666; }
svg line.tick { stroke: #eee; } .scatters { display: flex; flex-wrap: wrap; gap: 16px; }
figure { margin: 0; } figcaption { font-size: 12px; color: #444; }
table.params { border-collapse: collapse; font-size: 12px; margin-top: 6px; }
table.params td, table.params th { border: 1px solid #e3e3e3; padding: 1px 8px; text-align: left; }
pre { background: #f6f6f6; padding: 8px 12px; overflow-x: auto; font-size: 12px; }
.failure { border-left: 4px solid #c62828; padding-left: 12px; margin: 14px 0; }
.cancelled { border-left: 4px solid #9e9e9e; padding-left: 12px; margin: 14px 0; }
td.s-failed { color: #c62828; } td.s-completed { color: #2e7d32; }
)";

void header(const ReportInput& in, std::string& out) {
  const auto& m = in.manifest;
  const auto c = state::entity_counts(m);
  const int failed = c.count(state::Status::Failed) ? c.at(state::Status::Failed) : 0;
  const double end = m.finished > 0 && !in.running ? m.finished : in.now;
  std::string outcome = in.running ? "running (a snapshot taken " + date_time(in.now) + ")"
                        : m.finished > 0
                            ? (failed ? "exit code 1: " + std::to_string(failed) + " failed" : "exit code 0")
                            : "not running, never finished (ssim run was stopped)";
  out += "<h1>" + escape(m.experiment) + "</h1><p class=\"quiet\">ssim report of " + escape(m.path) + "</p>";
  out += "<section id=\"summary\"><div class=\"chips\">";
  for (const auto& [s, n] : c)
    out += std::string("<span style=\"background:") + colour_of(s) + "\">" + std::to_string(n) + " " +
           escape(state::to_string(s)) + "</span>";
  out += "</div><dl class=\"facts\">";
  auto fact = [&](const std::string& k, const std::string& v) {
    out += "<dt>" + escape(k) + "</dt><dd>" + escape(v) + "</dd>";
  };
  fact("outcome", outcome);
  fact("wall time", m.created > 0 ? duration_text(end - m.created) : "-");
  fact("started", date_time(m.created));
  if (m.finished > 0) fact("finished", date_time(m.finished));
  fact("launcher", m.launcher + (m.allocation_job.empty() ? "" : " (allocation " + m.allocation_job + ")"));
  std::map<std::string, int> nodes;
  for (const auto& e : m.entities)
    if (!e.nodes.empty()) nodes[e.nodes]++;
  std::string where;
  for (const auto& [n, k] : nodes) where += (where.empty() ? "" : ", ") + n;
  if (!where.empty()) fact("where", where.size() > 300 ? where.substr(0, 300) + "..." : where);
  fact("entities", std::to_string(m.entities.size()) + " (with the database shards)");
  fact("experiment file", m.file);
  if (!m.command.empty()) fact("command", m.command);
  out += "</dl></section>";
}

void failures(const ReportInput& in, std::string& out) {
  std::string body;
  int shown = 0, total = 0;
  for (const auto& e : in.manifest.entities) {
    if (e.status != state::Status::Failed) continue;
    if (++total > 200) continue;  // the first 200 in full; the table above has every one
    ++shown;
    body +=
        "<div class=\"failure\"><h3>" + escape(e.name) + "</h3><p>" +
        escape(e.reason.empty() ? (e.exit_code ? "exit code " + std::to_string(*e.exit_code) : "failed") : e.reason) +
        "</p>";
    if (!e.extra().params.empty()) {
      std::string params;
      for (const auto& [k, v] : e.extra().params) params += (params.empty() ? "" : ", ") + k + "=" + v;
      body += "<p class=\"params\">parameters: " + escape(params) + "</p>";
    }
    const auto it = in.stderr_tails.find(e.name);
    if (it != in.stderr_tails.end() && !it->second.empty()) body += "<pre>" + escape(it->second) + "</pre>";
    body += "<p class=\"quiet\">the rest: <code>ssim logs " + escape(in.manifest.path) + " " + escape(e.name) +
            " --stderr</code></p></div>";
  }
  if (total == 0) return;
  out += "<section id=\"failures\"><h2>Failed (" + std::to_string(total) + ")</h2>";
  if (shown < total) out += "<p class=\"quiet\">The first " + std::to_string(shown) + " are shown.</p>";
  out += body + "</section>";
}

// Why each cancelled entity did not run (a failed dependency, ssim stop, the run
// interrupted), one block per reason: at 100,000 members the reasons are few.
void cancellations(const ReportInput& in, std::string& out) {
  std::map<std::string, std::vector<const state::EntityRecord*>> by_reason;
  int total = 0;
  for (const auto& e : in.manifest.entities)
    if (e.status == state::Status::Cancelled)
      ++total, by_reason[e.reason.empty() ? "cancelled" : e.reason].push_back(&e);
  if (total == 0) return;
  out += "<section id=\"cancelled\"><h2>Cancelled (" + std::to_string(total) + ")</h2>";
  int blocks = 0;
  for (const auto& [reason, entities] : by_reason) {
    if (++blocks > 50) {
      out += "<p class=\"quiet\">" + std::to_string(by_reason.size() - 50) +
             " more reasons: ssim status --filter cancelled</p>";
      break;
    }
    std::string names;
    for (size_t i = 0; i < entities.size() && i < 20; ++i) names += (i ? ", " : "") + entities[i]->name;
    if (entities.size() > 20) names += " and " + std::to_string(entities.size() - 20) + " more";
    out += "<div class=\"cancelled\"><h3>" + escape(reason) + "</h3><p>" + std::to_string(entities.size()) +
           (entities.size() == 1 ? " entity: " : " entities: ") + escape(names) + "</p></div>";
  }
  out += "</section>";
}

}  // namespace

std::string render_report(const ReportInput& in) {
  std::string out;
  out.reserve(64 * 1024 + in.manifest.entities.size() * 600);
  out += "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + escape(in.manifest.experiment) +
         " - ssim report</title><style>" + kStyle + "</style></head><body>";
  header(in, out);
  failures(in, out);
  cancellations(in, out);
  const auto groups = groups_of(in.manifest);
  timeline_section(in, groups, out);
  bool any = false;
  for (const auto& g : groups) {
    if (!g.ensemble) continue;
    if (!any) out += "<section id=\"ensembles\"><h2>Ensembles</h2>";
    any = true;
    ensemble_section(in, g, out);
  }
  if (any) out += "</section>";
  metrics_section(in, groups, out);
  database_section(in, out);
  inference_section(in, out);
  out += "<section id=\"file\"><h2>Experiment file</h2><pre>" + escape(in.experiment_file) + "</pre></section>";
  out += "<p class=\"quiet\">Made by ssim report at " + escape(date_time(in.now)) +
         (in.made_by.empty() ? "" : " (" + escape(in.made_by) + ")") + ".</p></body></html>\n";
  return out;
}

}  // namespace ssim::report
