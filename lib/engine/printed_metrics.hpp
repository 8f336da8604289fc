#pragma once
// The metric lines a one-rank entity prints on stdout, stamped while ssim run watches it
// (docs/metrics.md). Ranks of several-rank entities are stamped by their own wrappers as
// each line comes (lib/state/stdout_stamps.hpp); a lone program writes straight to
// NAME.out, so ssim reads what it added there about once a second and stamps the metric
// lines in it with the time it saw them. What it stamped goes to metrics.0.stdout.ndjson
// with the offset of NAME.out read so far ({"out_offset": N}): readers take the rest of
// NAME.out (printed while no ssim run watched it) without a time, as before. An entity
// that prints no metric line costs a stat a second and creates no file.
#include <map>
#include <string>

#include "lib/state/stdout_stamps.hpp"

namespace ssim::engine {

class PrintedMetrics {
 public:
  // Reads what NAME.out gained since the last look and stamps its metric lines `now`.
  void look(const std::string& name, const std::string& run_dir, double now);
  // The entity ended: a last look (its last line, even without a newline), then forgotten.
  void end(const std::string& name, const std::string& run_dir, double now);
  bool watching(const std::string& name) const { return watched_.count(name) > 0; }

 private:
  struct Watched {
    long long read = 0;  // bytes of NAME.out read so far
    state::StdoutStamper stamper{0};
  };
  void stamp(const std::string& run_dir, const std::string& lines, long long offset);
  std::map<std::string, Watched> watched_;
};

// The record of how far NAME.out was read when the points before it were stamped.
std::string out_offset_record(long long offset);

}  // namespace ssim::engine
