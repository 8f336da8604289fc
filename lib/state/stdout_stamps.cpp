#include "lib/state/stdout_stamps.hpp"

#include <cstdio>
#include <cstdlib>

#include "lib/state/metric_line.hpp"

namespace ssim::state {

namespace {
constexpr std::string_view kStampedSuffix = ".stdout.ndjson";
}  // namespace

std::string StdoutStamper::stamp(const std::string& line, double now) const {
  if (line.find(kMetricLinePrefix) == std::string::npos) return "";
  int unreadable = 0;
  std::string out;
  for (auto p : parse_metric_stdout(line, &unreadable, rank_)) {
    p.time = now;
    out += encode_metric_json(p);
  }
  char time[32];
  std::snprintf(time, sizeof time, "%.17g", now);
  for (int i = 0; i < unreadable; ++i) out += std::string("{\"unreadable\":1,\"time\":") + time + "}\n";
  return out;
}

std::string StdoutStamper::take(std::string_view bytes, double now) {
  std::string out;
  while (!bytes.empty()) {
    const size_t nl = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, nl);
    if (!overlong_) partial_.append(piece);
    if (partial_.size() > kLongestMetricLine) partial_.clear(), overlong_ = true;
    if (nl == std::string_view::npos) break;
    if (!overlong_) out += stamp(partial_, now);
    partial_.clear(), overlong_ = false;
    bytes.remove_prefix(nl + 1);
  }
  return out;
}

std::string StdoutStamper::finish(double now) {
  std::string out = overlong_ ? "" : stamp(partial_, now);
  partial_.clear(), overlong_ = false;
  return out;
}

std::string stamped_metrics_path(const std::string& run_dir, int rank) {
  return run_dir + "/metrics." + std::to_string(rank) + std::string(kStampedSuffix);
}

bool is_stamped_metrics_file(const std::string& path) {
  return path.size() > kStampedSuffix.size() &&
         path.compare(path.size() - kStampedSuffix.size(), kStampedSuffix.size(), kStampedSuffix) == 0;
}

long long out_offset_of(const std::string& line) {
  constexpr std::string_view kRecord = "{\"out_offset\":";
  if (line.rfind(kRecord, 0) != 0) return -1;
  char* end = nullptr;
  const long long offset = std::strtoll(line.c_str() + kRecord.size(), &end, 10);
  return end && *end == '}' && offset >= 0 ? offset : -1;
}

}  // namespace ssim::state
