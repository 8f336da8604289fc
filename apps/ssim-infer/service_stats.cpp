#include "apps/ssim-infer/service_stats.hpp"

#include <algorithm>

namespace ssim::infer {

namespace {
constexpr size_t kRecent = 4096;
}

void ServiceStats::call(const std::string& model, double seconds, bool ok) {
  std::lock_guard<std::mutex> lock(mu_);
  Model& m = models_[model];
  ++m.calls;
  if (!ok) ++m.errors;
  m.total_seconds += seconds;
  if (m.recent.size() < kRecent)
    m.recent.push_back(seconds);
  else
    m.recent[m.next++ % kRecent] = seconds;
  ++changes_;
}

void ServiceStats::batch(const std::string& model, int64_t rows) {
  std::lock_guard<std::mutex> lock(mu_);
  Model& m = models_[model];
  ++m.batches;
  m.batch_rows += rows;
  m.max_batch = std::max(m.max_batch, rows);
  ++changes_;
}

uint64_t ServiceStats::changes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return changes_;
}

nlohmann::json ServiceStats::to_json() const {
  std::lock_guard<std::mutex> lock(mu_);
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, m] : models_) {
    std::vector<double> sorted = m.recent;
    std::sort(sorted.begin(), sorted.end());
    const double p99 = sorted.empty() ? 0 : sorted[std::min(sorted.size() - 1, sorted.size() * 99 / 100)];
    out[name] = {{"calls", m.calls},
                 {"errors", m.errors},
                 {"mean_ms", m.calls ? m.total_seconds / static_cast<double>(m.calls) * 1e3 : 0.0},
                 {"p99_ms", p99 * 1e3},
                 {"batches", m.batches},
                 {"mean_batch", m.batches ? static_cast<double>(m.batch_rows) / static_cast<double>(m.batches) : 0.0},
                 {"max_batch", m.max_batch}};
  }
  return out;
}

}  // namespace ssim::infer
