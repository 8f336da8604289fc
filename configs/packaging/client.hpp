// The ssim data client: #include <ssim/client.hpp> and link ssim::client (CMake:
// find_package(ssim)) or `pkg-config --cflags --libs ssim-client`.
#pragma once
#include "lib/client/client.hpp"
#include "lib/client/metrics.hpp"
