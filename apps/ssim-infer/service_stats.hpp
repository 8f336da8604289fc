#pragma once
// Per model: calls, errors, latency (mean and p99 over the last 4,096 calls) and batch
// sizes, for `ssim status`, the report and the dashboard (inference-stats.json).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace ssim::infer {

class ServiceStats {
 public:
  void call(const std::string& model, double seconds, bool ok);
  void batch(const std::string& model, int64_t rows);
  nlohmann::json to_json() const;
  uint64_t changes() const;

 private:
  struct Model {
    uint64_t calls = 0, errors = 0, batches = 0;
    double total_seconds = 0;
    int64_t batch_rows = 0, max_batch = 0;
    std::vector<double> recent;  // a ring of the last latencies
    size_t next = 0;
  };
  mutable std::mutex mu_;
  std::map<std::string, Model> models_;
  uint64_t changes_ = 0;
};

}  // namespace ssim::infer
