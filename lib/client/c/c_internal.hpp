#pragma once
// The C API's objects and its exception-to-status guard; shared by the c_*.cpp files.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lib/client/c/ssim_client.h"
#include "lib/client/client.hpp"

struct ssim_client {
  ssim::client::Client impl;
  std::vector<std::string> addresses;  // what ssim_db_address lends out
  // Where Fortran-order arrays are reordered, kept between calls: a fresh 64 MiB buffer
  // costs more in page faults than the reordering itself.
  std::vector<std::byte> scratch;
};

struct ssim_tensor {
  ssim::client::Tensor impl;
};

struct ssim_dataset {
  ssim::client::Dataset impl;
  // What the borrowing getters lend out, kept until the dataset is freed.
  mutable std::map<std::string, std::unique_ptr<ssim_tensor>> tensors;
  mutable std::map<std::string, std::vector<std::string>> strings;
};

namespace ssim::client::c_api {

// Runs f; turns what it throws into a status and the thread's last error.
template <class F>
ssim_status guard(F&& f) noexcept;
ssim_status fail(ssim_status status, const std::string& message) noexcept;

// Throws an invalid-argument error naming `what` when p is null.
void need(const void* p, const char* what);
// A string argument, checked for NULL.
const char* str(const char* s, const char* what);
// Writes a boolean result as 0 or 1.
void set_flag(int* out, bool value);
DType checked_dtype(ssim_dtype dtype);
void check_layout(ssim_layout layout);
uint64_t payload_bytes(const std::vector<uint64_t>& dims, DType dtype);
std::vector<uint64_t> dims_of(const uint64_t* dims, size_t ndims);
// The caller's array as row-major bytes: itself, or a reordered copy kept in `scratch`.
const void* row_major(const void* data, const std::vector<uint64_t>& dims, DType dtype, ssim_layout layout,
                      std::vector<std::byte>& scratch);
// Copies a stored (row-major) tensor's bytes into the caller's array of `layout`.
void copy_out(const void* row_major_data, void* data, const std::vector<uint64_t>& dims, DType dtype,
              ssim_layout layout);
// Copies a tensor the caller already has into its array, after checking dtype and dims
// (a mismatch names `what`).
void unpack_into(const Tensor& stored, const std::string& what, void* data, const std::vector<uint64_t>& dims,
                 DType dtype, ssim_layout layout);
ssim_status status_of_current_exception() noexcept;

template <class F>
ssim_status guard(F&& f) noexcept {
  try {
    f();
    return SSIM_OK;
  } catch (...) {
    return status_of_current_exception();
  }
}

}  // namespace ssim::client::c_api
