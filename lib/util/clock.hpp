#pragma once
#include <time.h>

namespace ssim {

// Wall-clock time in seconds since the epoch, as stored in the manifest.
inline double now_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

}  // namespace ssim
