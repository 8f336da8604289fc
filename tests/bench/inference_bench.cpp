// Benchmark (issue 26), the C++ side of bench_inference.sh: microseconds per call of
// the same TorchScript model (a) in-process with libtorch and (b) through run_model (the
// inference service beside a real redis-server), and calls per second of N callers.
//   inference_bench ADDRESS MODEL_FILE inprocess|remote|roundtrip ROWS REPS
//     -> "median_us p99_us"   (ROWS x 256 float32 in and out: 1 row = 1 KiB)
//   inference_bench ADDRESS MODEL_FILE callers N BATCH REPS  -> "calls_per_second"
//     (N threads, each its own client, one 1 KiB row per call; BATCH 0: no batching)
#include <torch/script.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "lib/client/client.hpp"

using namespace ssim::client;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kWidth = 256;

void print_latency(std::vector<double>& us) {
  std::sort(us.begin(), us.end());
  std::printf("%.1f %.1f\n", us[us.size() / 2], us[std::min(us.size() - 1, us.size() * 99 / 100)]);
}

template <class F>
std::vector<double> time_calls(int reps, F&& f) {
  for (int i = 0; i < std::max(10, reps / 10); ++i) f();  // warm up (the first call loads the model)
  std::vector<double> us;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = Clock::now();
    f();
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  return us;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) return 2;
  const std::string address = argv[1], model_file = argv[2], mode = argv[3];
  if (mode == "inprocess") {
    const int rows = std::stoi(argv[4]), reps = std::stoi(argv[5]);
    auto module = torch::jit::load(model_file);
    module.eval();
    c10::InferenceMode guard;
    const torch::Tensor x = torch::ones({rows, kWidth});
    auto us = time_calls(reps, [&] { (void)module.forward({x}).toTensor(); });
    print_latency(us);
    return 0;
  }
  Client c(address, "");
  if (mode == "remote" || mode == "roundtrip") {
    const int rows = std::stoi(argv[4]), reps = std::stoi(argv[5]);
    c.set_model_from_file("bench_mlp", model_file);
    std::vector<float> x(static_cast<size_t>(rows) * kWidth, 1.0f), y(x.size());
    const std::vector<uint64_t> dims = {static_cast<uint64_t>(rows), kWidth};
    c.put_tensor("bench_in", x.data(), dims, DType::F32);
    std::vector<double> us;
    if (mode == "remote") {
      us = time_calls(reps, [&] { c.run_model("bench_mlp", {"bench_in"}, {"bench_out"}); });
    } else {
      us = time_calls(reps, [&] {
        c.put_tensor("bench_in", x.data(), dims, DType::F32);
        c.run_model("bench_mlp", {"bench_in"}, {"bench_out"});
        c.unpack_tensor("bench_out", y.data(), dims, DType::F32);
      });
    }
    print_latency(us);
    return 0;
  }
  if (mode == "callers") {
    const int n = std::stoi(argv[4]), batch = std::stoi(argv[5]), reps = std::stoi(argv[6]);
    const std::string name = "bench_mlp_" + std::to_string(batch);
    c.set_model_from_file(name, model_file, "TORCH", "CPU", batch, 0, 0);
    std::vector<std::thread> threads;
    const auto t0 = Clock::now();
    for (int t = 0; t < n; ++t)
      threads.emplace_back([&, t] {
        Client mine(address, "");
        std::vector<float> x(kWidth, 1.0f), y(kWidth);
        const std::string in = "caller_in_" + std::to_string(t), out = "caller_out_" + std::to_string(t);
        for (int i = 0; i < reps; ++i) {
          mine.put_tensor(in, x.data(), {1, kWidth}, DType::F32);
          mine.run_model(name, {in}, {out});
          mine.unpack_tensor(out, y.data(), {1, kWidth}, DType::F32);
        }
      });
    for (auto& t : threads) t.join();
    std::printf("%.0f\n", n * reps / std::chrono::duration<double>(Clock::now() - t0).count());
    return 0;
  }
  return 2;
}
