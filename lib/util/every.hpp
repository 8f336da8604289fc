#pragma once
// A pace: due() is true at most once per interval of the steady clock (the first time at
// once). What the engine's phases look at every second or every few.
#include <algorithm>
#include <chrono>

namespace ssim {

class Every {
 public:
  explicit Every(std::chrono::steady_clock::duration interval) : interval_(interval) {}
  bool due(std::chrono::steady_clock::time_point now) {
    if (started_ && now < next_) return false;
    started_ = true;
    next_ = now + interval_;
    return true;
  }
  // The next time comes no sooner than `gap` after the last one: a task that costs more
  // than its share of the interval spaces itself out.
  void at_least(std::chrono::steady_clock::duration gap) { next_ = std::max(next_, next_ - interval_ + gap); }

 private:
  std::chrono::steady_clock::duration interval_;
  std::chrono::steady_clock::time_point next_{};
  bool started_ = false;
};

}  // namespace ssim
