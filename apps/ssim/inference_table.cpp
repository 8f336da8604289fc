#include "apps/ssim/inference_table.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "lib/orchestrator/inference_files.hpp"

namespace ssim::app {

namespace {
std::string ms(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v < 10 ? "%.2f ms" : "%.0f ms", v);
  return buf;
}
}  // namespace

void print_inference_table(std::ostream& out, const state::Manifest& m) {
  std::vector<std::vector<std::string>> rows = {
      {"INFERENCE", "STATUS", "PID", "ADDRESS", "MODEL", "CALLS", "ERRORS", "MEAN", "P99", "BATCH MEAN/MAX"}};
  for (const auto& e : m.entities) {
    if (e.type != state::EntityKind::Database) continue;
    const auto s = orchestrator::inference_status(e.name, e.run_dir, e.status == state::Status::Running);
    if (!s) continue;
    const std::vector<std::string> service = {e.name, (*s)["status"], std::to_string((*s)["pid"].get<int>()),
                                              (*s)["address"]};
    if ((*s)["models"].empty()) {
      rows.push_back(service);
      rows.back().insert(rows.back().end(), {"-", "0", "0", "", "", ""});
    }
    for (const auto& [name, st] : (*s)["models"].items()) {
      char batch[48];
      std::snprintf(batch, sizeof batch, "%.1f/%lld", st.value("mean_batch", 0.0),
                    static_cast<long long>(st.value("max_batch", 0)));
      rows.push_back(service);
      rows.back().insert(rows.back().end(),
                         {name, std::to_string(st.value("calls", 0)), std::to_string(st.value("errors", 0)),
                          ms(st.value("mean_ms", 0.0)), ms(st.value("p99_ms", 0.0)), batch});
    }
  }
  if (rows.size() == 1) return;
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  out << "\n";
  for (const auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i)
      line += r[i] + (i + 1 < r.size() ? std::string(width[i] - r[i].size() + 2, ' ') : "");
    out << line << "\n";
  }
}

}  // namespace ssim::app
