#pragma once
// The HTTP side of `ssim dashboard`: one thread, an asio event loop (Boost.Beast), so a
// connection costs a socket and a few KiB, never a thread. What a hostile neighbour on
// the same host can do is bounded: a request must arrive whole within 10 s of
// connecting (slow headers and bodies are cut off), at most kMaxConnections are open,
// and past that the oldest connection that has not shown the token is closed for the
// new one, so the owner's browser always gets in. Connections that showed the token
// idle out after 30 s.
#include <functional>
#include <string>

#include "apps/ssim/dashboard_routes.hpp"

namespace ssim::app {

struct DashboardLimits {
  int max_connections = 256;     // in all
  int max_per_remote_host = 32;  // from one address other than this host's loopback
  int request_seconds = 10;      // to send a whole request (headers and body)
  int idle_seconds = 30;         // a connection that showed the token, between requests
};

// Listens on bind:port (port 0: any free one), calls `listening(port)` once bound, then
// answers requests through handle_request until the process ends. Throws
// EnvironmentError when it cannot listen.
void serve_dashboard(const Dashboard& d, const std::string& bind, int port,
                     const std::function<void(int port)>& listening, const DashboardLimits& limits = {});

}  // namespace ssim::app
