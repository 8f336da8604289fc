#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lib/client/dtype.hpp"

namespace ssim::client {

// A tensor owned by the caller after get_tensor: dtype, dims (C order) and bytes.
class Tensor {
 public:
  Tensor() = default;
  Tensor(DType dtype, std::vector<uint64_t> dims);
  Tensor(DType dtype, std::vector<uint64_t> dims, const void* data);  // copies

  DType dtype() const { return dtype_; }
  const std::vector<uint64_t>& dims() const { return dims_; }
  uint64_t elements() const;
  uint64_t bytes() const { return bytes_; }
  void* data() { return data_.get(); }
  const void* data() const { return data_.get(); }
  template <class T>
  T* as() {
    return static_cast<T*>(data());
  }
  template <class T>
  const T* as() const {
    return static_cast<const T*>(data());
  }

 private:
  DType dtype_ = DType::F64;
  std::vector<uint64_t> dims_;
  uint64_t bytes_ = 0;
  std::shared_ptr<std::byte[]> data_;  // 64-byte aligned
};

}  // namespace ssim::client
