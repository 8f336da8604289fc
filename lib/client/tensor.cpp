#include "lib/client/tensor.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

#include "lib/client/wire_format.hpp"

namespace ssim::client {

Tensor::Tensor(DType dtype, std::vector<uint64_t> dims) : dtype_(dtype), dims_(std::move(dims)) {
  bytes_ = payload_size(dtype_, dims_);
  const size_t alloc = (std::max<uint64_t>(bytes_, 1) + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, alloc);
  if (!p) throw std::bad_alloc();
  data_ = std::shared_ptr<std::byte[]>(static_cast<std::byte*>(p), [](std::byte* q) { std::free(q); });
}

Tensor::Tensor(DType dtype, std::vector<uint64_t> dims, const void* data) : Tensor(dtype, std::move(dims)) {
  if (bytes_) std::memcpy(data_.get(), data, bytes_);
}

uint64_t Tensor::elements() const {
  uint64_t n = 1;
  for (auto d : dims_) n *= d;
  return n;
}

}  // namespace ssim::client
