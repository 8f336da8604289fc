#pragma once
// The HTTP side of `ssim dashboard`: Boost.Beast, one thread per connection (a browser
// keeps idle connections open; none may hold up another), idle ones dropped after 30 s.
#include <functional>
#include <string>

#include "apps/ssim/dashboard_routes.hpp"

namespace ssim::app {

// Listens on bind:port (port 0: any free one), calls `listening(port)` once bound, then
// answers requests through handle_request until the process ends. Throws
// EnvironmentError when it cannot listen.
void serve_dashboard(const Dashboard& d, const std::string& bind, int port,
                     const std::function<void(int port)>& listening);

}  // namespace ssim::app
