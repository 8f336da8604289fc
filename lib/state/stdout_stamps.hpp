#pragma once
// The metric lines a rank prints on stdout, stamped as they arrive (docs/metrics.md). The
// rank wrapper (ssim-supervise --rank) reads its own rank's stdout, passes every byte on
// unchanged, and writes each metric line's points, with the time the line came, to
// metrics.RANK.stdout.ndjson beside the clients' files. A launcher that runs ranks' lines
// together on their way to NAME.out then loses none, and printed points have a time like
// the clients'. Readers take an entity's printed points from those files once one exists,
// and from NAME.out (without a time) otherwise.
#include <string>
#include <string_view>

namespace ssim::state {

class StdoutStamper {
 public:
  explicit StdoutStamper(int rank) : rank_(rank) {}
  // The metrics file's lines for the metric lines `bytes` completes, stamped `now`; a
  // metric line that is not the documented form gives {"unreadable": 1, "time": now}.
  std::string take(std::string_view bytes, double now);
  // The same for a last line without a newline, at the end of the stream.
  std::string finish(double now);
  // Bytes taken that are not a whole line yet.
  size_t pending() const { return overlong_ ? 0 : partial_.size(); }

 private:
  std::string stamp(const std::string& line, double now) const;
  int rank_;
  std::string partial_;    // the line not ended yet
  bool overlong_ = false;  // the current line passed the limit: not kept
};

// A line longer than this is no metric line a program meant: it is not kept.
inline constexpr size_t kLongestMetricLine = 64 * 1024;

std::string stamped_metrics_path(const std::string& run_dir, int rank);  // RUN_DIR/metrics.RANK.stdout.ndjson
bool is_stamped_metrics_file(const std::string& path);
// A stamped file's {"out_offset": N} record (lib/engine/printed_metrics.hpp): N, or -1
// for any other line.
long long out_offset_of(const std::string& line);

}  // namespace ssim::state
