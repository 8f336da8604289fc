#pragma once
// Pieces shared by client.cpp and client_datasets.cpp; not part of the public API.
#include <chrono>
#include <thread>

#include "lib/client/client.hpp"
#include "lib/client/router.hpp"

namespace ssim::client {

// SSIM_CONNECT_TIMEOUT (seconds), 10 s by default.
std::chrono::milliseconds connect_timeout();

// Tries `done` up to `tries` times, `interval_ms` apart.
template <class F>
bool poll_until(F&& done, int interval_ms, int tries) {
  for (int i = 0; i < tries; ++i) {
    if (done()) return true;
    if (i + 1 < tries) std::this_thread::sleep_for(std::chrono::milliseconds(interval_ms));
  }
  return false;
}

// Runs `f`, following cluster redirections: MOVED refreshes the slot map and retries;
// ASK (the key's slot is being migrated) retries with that slot's keys sent to the
// importing node, each command preceded by ASKING, for this operation only.
template <class F>
auto Client::with_redirects(F&& f) -> decltype(f()) {
  struct AskScope {
    Router& r;
    ~AskScope() { r.end_ask(); }
  } scope{*router_};
  for (int attempt = 0;; ++attempt) {
    try {
      return f();
    } catch (const ReplyError& e) {
      if (!(e.moved() || e.ask()) || attempt >= 5) throw;
      router_->end_ask();
      if (e.moved())
        router_->refresh();
      else
        router_->begin_ask(e.slot(), e.target());
    }
  }
}

}  // namespace ssim::client
