#include "lib/engine/waiter.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "lib/launch/launcher.hpp"
#include "lib/state/control_request.hpp"

namespace ssim::engine {

std::string SignalWaiter::wait(int timeout_ms) {
  pollfd p[2] = {{signal_fd_, POLLIN, 0}, {launcher_.wake_fd(), POLLIN, 0}};
  if (::poll(p, 2, timeout_ms) <= 0) return "";
  if (p[1].revents) launcher_.take_wake();
  if (!(p[0].revents & POLLIN)) return "";
  signalfd_siginfo info{};
  if (::read(signal_fd_, &info, sizeof info) != sizeof info) return "";
  switch (info.ssi_signo) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:  // ssim stop's carries its mark (control_request.hpp)
      return info.ssi_code == SI_QUEUE && info.ssi_int == state::kStopSignalValue ? "ssim stop" : "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "";
  }
}

}  // namespace ssim::engine
