// The inference services (docs/inference.md): per shard and model, calls, errors,
// latency and batch sizes, as the service last wrote them.
#include "lib/report/html.hpp"
#include "lib/report/sections.hpp"

namespace ssim::report {

void inference_section(const ReportInput& in, std::string& out) {
  if (in.inference.empty()) return;
  out +=
      "<section id=\"inference\"><h2>Inference</h2><p class=\"quiet\">Models and scripts run by the service "
      "beside each shard; latency is measured in the service, from request to answer (p99 over the last 4,096 "
      "calls).</p><table class=\"params\"><tr><th>shard</th><th>service</th><th>model</th><th>calls</th>"
      "<th>errors</th><th>mean</th><th>p99</th><th>batches</th><th>mean batch</th><th>largest batch</th></tr>";
  for (const auto& s : in.inference) {
    const std::string shard = s.value("shard", ""), service = s.value("status", "") + " at " + s.value("address", "");
    if (!s.contains("models") || s["models"].empty())
      out += "<tr><td>" + escape(shard) + "</td><td>" + escape(service) + "</td><td colspan=\"8\">no calls</td></tr>";
    if (s.contains("models"))
      for (const auto& [name, m] : s["models"].items())
        out += "<tr><td>" + escape(shard) + "</td><td>" + escape(service) + "</td><td>" + escape(name) + "</td><td>" +
               number(m.value("calls", 0.0), 0) + "</td><td>" + number(m.value("errors", 0.0), 0) + "</td><td>" +
               number(m.value("mean_ms", 0.0), 2) + " ms</td><td>" + number(m.value("p99_ms", 0.0), 2) +
               " ms</td><td>" + number(m.value("batches", 0.0), 0) + "</td><td>" +
               number(m.value("mean_batch", 0.0), 1) + "</td><td>" + number(m.value("max_batch", 0.0), 0) +
               "</td></tr>";
  }
  out += "</table></section>";
}

}  // namespace ssim::report
