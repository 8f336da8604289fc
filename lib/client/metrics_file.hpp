#pragma once
// Appending to a rank's metrics file (docs/metrics.md): whole lines in one write, under an
// exclusive flock of the file, as ssim's thinner expects (lib/state/metrics_bound.hpp).
// Used by the clients' writer and by the rank wrapper, which stamps the metric lines a
// rank prints on stdout.
#include <string>

namespace ssim::metrics {

// The file opened for appending, never through a link another user planted: a link of
// one's own is followed, any other refused. -1 when refused or not opened.
int open_for_append(const std::string& path);

// Appends `text` (whole lines) under the lock; a write the disk refuses half-way is cut
// back to where it began (never a torn line): false then.
bool append_locked(const std::string& path, const std::string& text);

}  // namespace ssim::metrics
