#pragma once
// One metric point, and the form a program prints it in on stdout without a client
// ("ssim:metric loss=0.31 step=120", docs/metrics.md) and the form the metrics files hold
// it in (one JSON object a line). Pure; small enough for the rank wrapper, which stamps
// the lines its rank prints (stdout_stamps.hpp).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ssim::state {

// What starts a metric line on stdout.
inline constexpr std::string_view kMetricLinePrefix = "ssim:metric ";

struct MetricPoint {
  std::string name;
  double value = 0;
  std::optional<long long> step;
  std::optional<long long> epoch;
  std::string phase;  // "train", "val", ... when given
  int rank = 0;
  double time = 0;     // epoch seconds, when known (stdout lines have none)
  std::string source;  // "client" or "stdout"
};

// A metric name: letters, digits, _ . - /, starting with a letter; at most 64 bytes.
bool valid_metric_name(const std::string& name);

// "ssim:metric loss=0.31 acc=0.9 step=120 epoch=2 phase=val rank=1": one point per
// metric; step, epoch, phase and rank apply to all of them. Empty for other lines.
// Ranks' lines that their launcher's output forwarding ran together ("...rank=0ssim:metric
// loss=0.4 ...", or a metric line after another rank's text) are read one by one; a
// metric line that cannot be read whole (cut by another rank's bytes) counts in `garbled`.
std::vector<MetricPoint> parse_metric_stdout(const std::string& line, int* garbled = nullptr, int default_rank = 0);
// The line, where "rank=" is missing, is `default_rank`'s.

// A metrics file's line for `p` (newline included): {"name", "value", "step"?, "epoch"?,
// "phase"?, "rank", "time"?}, and "via": "stdout" for a printed line that was stamped.
std::string encode_metric_json(const MetricPoint& p);

}  // namespace ssim::state
