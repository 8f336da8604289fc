#include "lib/util/every.hpp"

#include <catch2/catch.hpp>

using namespace std::chrono_literals;
using ssim::Every;

TEST_CASE("every: due once per interval, and a costly task spaces itself out") {
  const std::chrono::steady_clock::time_point t0{};
  Every every(100ms);
  CHECK(every.due(t0));
  CHECK_FALSE(every.due(t0 + 50ms));
  CHECK(every.due(t0 + 100ms));
  every.at_least(2s);  // what it did took 40 ms: 50 times that
  CHECK_FALSE(every.due(t0 + 1s));
  CHECK(every.due(t0 + 2100ms));
  every.at_least(10ms);  // cheap again: the interval stands
  CHECK(every.due(t0 + 2200ms));
}
