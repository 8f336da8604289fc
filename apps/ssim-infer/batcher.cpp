#include "apps/ssim-infer/batcher.hpp"

namespace ssim::infer {

namespace {
int64_t rows_of(const Tensors& inputs) { return inputs.empty() || inputs[0].dim() == 0 ? 1 : inputs[0].size(0); }

// Same number of inputs, each with the same type, rank and sizes past dimension 0.
bool stackable(const Tensors& a, const Tensors& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].dim() == 0 || a[i].dim() != b[i].dim() || a[i].scalar_type() != b[i].scalar_type()) return false;
    if (a[i].sizes().slice(1) != b[i].sizes().slice(1)) return false;
  }
  return true;
}
}  // namespace

Batcher::Batcher(Run run, OnBatch on_batch, int batch_size, int min_batch_size, std::chrono::milliseconds timeout)
    : run_(std::move(run)),
      on_batch_(std::move(on_batch)),
      batch_size_(batch_size),
      min_batch_size_(min_batch_size),
      timeout_(timeout),
      worker_([this] { work(); }) {}

Batcher::~Batcher() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  worker_.join();
}

Tensors Batcher::submit(Tensors inputs) {
  Request r{std::move(inputs), 0, {}};
  r.rows = rows_of(r.inputs);
  auto result = r.done.get_future();
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(&r);
    queued_rows_ += r.rows;
  }
  wake_.notify_all();
  return result.get();
}

void Batcher::work() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    // Wait for min_batch_size rows, at most `timeout` from now.
    if (min_batch_size_ > 0 && queued_rows_ < min_batch_size_) {
      const auto deadline = std::chrono::steady_clock::now() + timeout_;
      wake_.wait_until(lock, deadline, [&] { return stopping_ || queued_rows_ >= min_batch_size_; });
    }
    std::vector<Request*> batch{queue_.front()};
    queue_.pop_front();
    int64_t rows = batch[0]->rows;
    while (!queue_.empty() && rows + queue_.front()->rows <= batch_size_ &&
           stackable(batch[0]->inputs, queue_.front()->inputs)) {
      rows += queue_.front()->rows;
      batch.push_back(queue_.front());
      queue_.pop_front();
    }
    queued_rows_ -= rows;
    lock.unlock();
    run_together(batch);
    lock.lock();
  }
}

void Batcher::run_together(std::vector<Request*>& batch) {
  try {
    int64_t rows = 0;
    for (auto* r : batch) rows += r->rows;
    if (on_batch_) on_batch_(rows);
    if (batch.size() == 1) {
      batch[0]->done.set_value(run_(batch[0]->inputs));
      return;
    }
    Tensors stacked;
    for (size_t i = 0; i < batch[0]->inputs.size(); ++i) {
      std::vector<torch::Tensor> parts;
      for (auto* r : batch) parts.push_back(r->inputs[i]);
      stacked.push_back(torch::cat(parts, 0));
    }
    const Tensors out = run_(stacked);
    int64_t at = 0;
    for (auto* r : batch) {
      Tensors mine;
      for (const auto& o : out) {
        if (o.dim() == 0 || o.size(0) != rows)
          throw std::runtime_error("a batched output's first dimension is not the batch's");
        mine.push_back(o.narrow(0, at, r->rows));
      }
      at += r->rows;
      r->done.set_value(std::move(mine));
    }
  } catch (...) {
    for (auto* r : batch) {
      try {
        r->done.set_exception(std::current_exception());
      } catch (const std::future_error&) {
        // already answered
      }
    }
  }
}

}  // namespace ssim::infer
