#pragma once
// What the engine waits on between ticks: SIGINT, SIGTERM and SIGHUP (a signalfd), and
// a launcher's wake descriptor (a job may have ended). Unit tests give a fake that
// moves a fake clock instead of sleeping and delivers signals when told.
#include <string>

#include "lib/launch/launcher.hpp"

namespace ssim::engine {

class Waiter {
 public:
  virtual ~Waiter() = default;
  // Up to `timeout_ms`; returns "SIGINT", "SIGTERM" or "SIGHUP" when one arrived, else ""
  // (the time passed, or a job may have ended).
  virtual std::string wait(int timeout_ms) = 0;
};

// poll(2) on a signalfd (or -1) and the launcher's wake descriptor (when it has one).
class SignalWaiter : public Waiter {
 public:
  SignalWaiter(int signal_fd, launch::Launcher& launcher) : signal_fd_(signal_fd), launcher_(launcher) {}
  std::string wait(int timeout_ms) override;

 private:
  int signal_fd_;
  launch::Launcher& launcher_;
};

}  // namespace ssim::engine
