#pragma once
// Pieces shared by client.cpp and client_datasets.cpp; not part of the public API.
#include <chrono>
#include <thread>

#include "lib/client/client.hpp"
#include "lib/client/router.hpp"

namespace ssim::client {

// Tries `done` up to `tries` times, `interval_ms` apart.
template <class F>
bool poll_until(F&& done, int interval_ms, int tries) {
  for (int i = 0; i < tries; ++i) {
    if (done()) return true;
    if (i + 1 < tries) std::this_thread::sleep_for(std::chrono::milliseconds(interval_ms));
  }
  return false;
}

// Runs `f`, following cluster redirections: MOVED refreshes the slot map and retries.
// ASK (a slot being migrated, which ssim itself never does) is retried after a refresh
// with a short wait, so an operation succeeds once the migration has moved the slot;
// the pipelined paths do not send ASKING to the importing node.
template <class F>
auto Client::with_redirects(F&& f) -> decltype(f()) {
  for (int attempt = 0;; ++attempt) {
    try {
      return f();
    } catch (const ReplyError& e) {
      if (!(e.moved() || e.ask()) || attempt >= 8) throw;
      if (e.ask()) std::this_thread::sleep_for(std::chrono::milliseconds(50 * (attempt + 1)));
      router_->refresh();
    }
  }
}

}  // namespace ssim::client
