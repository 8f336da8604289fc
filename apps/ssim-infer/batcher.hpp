#pragma once
// Batching of one model's calls, as RedisAI does: requests from many callers are queued;
// a worker runs them together once `min_batch_size` rows are waiting (or `timeout` has
// passed since the first), at most `batch_size` rows at a time, concatenating each input
// along dimension 0 and splitting the outputs back by each request's rows. Requests whose
// inputs cannot be stacked with the others (other trailing shapes or types) run alone.
#include <torch/script.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

namespace ssim::infer {

using Tensors = std::vector<torch::Tensor>;

class Batcher {
 public:
  using Run = std::function<Tensors(const Tensors&)>;
  using OnBatch = std::function<void(int64_t rows)>;
  Batcher(Run run, OnBatch on_batch, int batch_size, int min_batch_size, std::chrono::milliseconds timeout);
  ~Batcher();
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  // Blocks until the request's batch has run; rethrows the model's error.
  Tensors submit(Tensors inputs);

 private:
  struct Request {
    Tensors inputs;
    int64_t rows;
    std::promise<Tensors> done;
  };
  void work();
  void run_together(std::vector<Request*>& batch);

  Run run_;
  OnBatch on_batch_;
  const int64_t batch_size_, min_batch_size_;
  const std::chrono::milliseconds timeout_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Request*> queue_;
  int64_t queued_rows_ = 0;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace ssim::infer
