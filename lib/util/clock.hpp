#pragma once
// Time, as the engine and the stop algorithm read it: wall-clock seconds (stored in the
// manifest), a steady clock for deadlines, and sleeping. A Clock is passed where time
// matters so that unit tests can drive it (a fake that moves only when told or slept).
#include <time.h>

#include <chrono>
#include <thread>

namespace ssim {

// Wall-clock time in seconds since the epoch, as stored in the manifest.
inline double now_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

class Clock {
 public:
  virtual ~Clock() = default;
  virtual double now() const { return now_seconds(); }
  virtual std::chrono::steady_clock::time_point steady() const { return std::chrono::steady_clock::now(); }
  virtual void sleep(std::chrono::milliseconds d) const { std::this_thread::sleep_for(d); }
};

// The machine's clocks.
inline const Clock& real_clock() {
  static const Clock clock;
  return clock;
}

}  // namespace ssim
