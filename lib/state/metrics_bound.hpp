#pragma once
// Keeping an entity's metrics files bounded (docs/metrics.md, "How much is kept"): a
// rank's file that grew past the limit is thinned in place, as the database samples are.
//
// The files have writers (the clients) while they are thinned. Both sides hold an
// exclusive flock of the file: a writer appends whole lines under it and, once it holds
// it, checks that the path still names the file it locked (reopening when not); the
// thinner writes the thinned copy and renames it over the path under the same lock. So a
// point is either in the copy or appended after it, never lost, and a reader sees the
// old file or the new one.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/state/metrics.hpp"

namespace ssim::state {

// 16 MiB (about 180,000 points), or SSIM_METRICS_LIMIT (bytes, at least 4096) when set;
// a value that is not one is said in `problem` (and the default used).
std::uintmax_t metrics_file_limit(std::string* problem = nullptr);

// The lines of a metrics file to keep once it grew past its bound, in their order: of
// each series (a metric and phase), every other point, and always its first, its last,
// the one with the highest step and the first that meets `goal`, so the latest value and
// the time to the goal read the same afterwards. Lines that are no point are dropped.
std::vector<std::string_view> thin_metric_lines(std::string_view text, const Goal* goal);

// When `path` is larger than `limit`, thins it (as often as it takes to be under half
// the limit) and replaces it; true when it did. A file whose lock is held is left for
// the next time (false): the engine never waits on a writer.
bool bound_metrics_file(const std::string& path, std::uintmax_t limit, const Goal* goal);

}  // namespace ssim::state
