// Benchmark: 1 KiB put_tensor / get_tensor, one at a time, through a Unix
// socket against loopback TCP, to the same redis-server in the same run.
//   colocated_bench unix:/path/db.sock 127.0.0.1:PORT
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "lib/client/client.hpp"

using namespace ssim::client;
using Clock = std::chrono::steady_clock;

namespace {
// Best of three rounds of `n` operations: operations per second.
template <typename F>
double rate(int n, F&& op) {
  double best = 1e30;
  for (int round = 0; round < 3; ++round) {
    const auto t0 = Clock::now();
    for (int i = 0; i < n; ++i) op(i);
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return n / best;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: colocated_bench unix:/path 127.0.0.1:PORT\n");
    return 2;
  }
  const int n = 10000;
  std::vector<char> v(1024, 1);
  double results[2][2];
  for (int k = 0; k < 2; ++k) {
    Client c(argv[k + 1], "");
    results[k][0] = rate(n, [&](int i) { c.put_tensor("t" + std::to_string(i % 100), v.data(), {1024}, DType::U8); });
    results[k][1] = rate(n, [&](int i) { c.get_tensor("t" + std::to_string(i % 100)); });
  }
  std::printf("1 KiB, one at a time     put ops/s   get ops/s\n");
  std::printf("Unix socket              %9.0f   %9.0f\n", results[0][0], results[0][1]);
  std::printf("loopback TCP             %9.0f   %9.0f\n", results[1][0], results[1][1]);
  std::printf("Unix / TCP               %9.2fx  %9.2fx\n", results[0][0] / results[1][0],
              results[0][1] / results[1][1]);
}
