#pragma once
// A pace: due() is true at most once per interval of the steady clock (the first time at
// once). What the engine's phases look at every second or every few.
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

 private:
  std::chrono::steady_clock::duration interval_;
  std::chrono::steady_clock::time_point next_{};
  bool started_ = false;
};

}  // namespace ssim
