// Benchmark, C++ side of bench_languages.sh: seconds for `reps` put_tensor
// and `reps` unpack_tensor of one f64 tensor of `bytes`, best of three.
//   lang_bench_cpp ADDRESS BYTES REPS
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "lib/client/client.hpp"

using namespace ssim::client;

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  Client c(argv[1], "");
  const uint64_t n = std::strtoull(argv[2], nullptr, 10) / 8;
  const int reps = std::atoi(argv[3]);
  std::vector<double> data(n, 1.5);
  double put = 1e30, get = 1e30;
  for (int round = 0; round < 3; ++round) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) c.put_tensor("bench", data.data(), {n}, DType::F64);
    auto t1 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) c.unpack_tensor("bench", data.data(), {n}, DType::F64);
    auto t2 = std::chrono::steady_clock::now();
    put = std::min(put, std::chrono::duration<double>(t1 - t0).count());
    get = std::min(get, std::chrono::duration<double>(t2 - t1).count());
  }
  std::printf("%.6f %.6f\n", put, get);
}
