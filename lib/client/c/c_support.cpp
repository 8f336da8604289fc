// The C API's shared side: statuses from exceptions, the per-thread last error, the
// argument checks, and copies between the caller's layout and the stored row-major one.
#include <cstring>
#include <new>
#include <stdexcept>

#include "lib/client/c/c_internal.hpp"
#include "lib/client/connection.hpp"
#include "lib/client/layout.hpp"

namespace ssim::client::c_api {

namespace {
thread_local std::string last_error;
}

ssim_status fail(ssim_status status, const std::string& message) noexcept {
  try {
    last_error = message;
  } catch (...) {
  }
  return status;
}

ssim_status status_of_current_exception() noexcept {
  try {
    throw;
  } catch (const KeyNotFound& e) {
    return fail(SSIM_ERR_KEY_NOT_FOUND, e.what());
  } catch (const TypeMismatch& e) {
    return fail(SSIM_ERR_TYPE_MISMATCH, e.what());
  } catch (const AuthError& e) {
    return fail(SSIM_ERR_AUTH, e.what());
  } catch (const ConnectionError& e) {
    return fail(SSIM_ERR_CONNECTION, e.what());
  } catch (const ReplyError& e) {
    return fail(SSIM_ERR_SERVER, e.what());
  } catch (const InferenceError& e) {
    return fail(SSIM_ERR_INFERENCE, e.what());
  } catch (const ClientError& e) {
    return fail(SSIM_ERR_INVALID, e.what());
  } catch (const std::invalid_argument& e) {
    return fail(SSIM_ERR_INVALID, e.what());
  } catch (const std::bad_alloc&) {
    return fail(SSIM_ERR_INTERNAL, "out of memory");
  } catch (const std::exception& e) {
    return fail(SSIM_ERR_INTERNAL, e.what());
  } catch (...) {
    return fail(SSIM_ERR_INTERNAL, "unknown error");
  }
}

void need(const void* p, const char* what) {
  if (!p) throw std::invalid_argument(std::string(what) + " is NULL");
}

const char* str(const char* s, const char* what) {
  need(s, what);
  return s;
}

void set_flag(int* out, bool value) {
  need(out, "the result pointer");
  *out = value ? 1 : 0;
}

DType checked_dtype(ssim_dtype dtype) {
  const int code = static_cast<int>(dtype);
  if (code < 0 || code > 255 || !valid_dtype_code(static_cast<uint8_t>(code)))
    throw std::invalid_argument("unknown dtype " + std::to_string(code));
  return static_cast<DType>(code);
}

std::vector<uint64_t> dims_of(const uint64_t* dims, size_t ndims) {
  if (ndims > 0) need(dims, "dims");
  return std::vector<uint64_t>(dims, dims + ndims);
}

void check_layout(ssim_layout layout) {
  if (layout != SSIM_LAYOUT_C && layout != SSIM_LAYOUT_FORTRAN)
    throw std::invalid_argument("unknown layout " + std::to_string(static_cast<int>(layout)));
}

uint64_t payload_bytes(const std::vector<uint64_t>& dims, DType dtype) {
  uint64_t n = dtype_size(dtype);
  for (auto d : dims) n *= d;
  return n;
}

const void* row_major(const void* data, const std::vector<uint64_t>& dims, DType dtype, ssim_layout layout,
                      std::vector<std::byte>& scratch) {
  check_layout(layout);
  const uint64_t bytes = payload_bytes(dims, dtype);
  if (bytes > 0) need(data, "data");
  if (layout == SSIM_LAYOUT_C || dims.size() < 2) return data;
  scratch.resize(bytes);
  fortran_to_c_order(data, scratch.data(), dims, dtype_size(dtype));
  return scratch.data();
}

void copy_out(const void* src, void* data, const std::vector<uint64_t>& dims, DType dtype, ssim_layout layout) {
  check_layout(layout);
  if (layout == SSIM_LAYOUT_C || dims.size() < 2)
    std::memcpy(data, src, payload_bytes(dims, dtype));
  else
    c_to_fortran_order(src, data, dims, dtype_size(dtype));
}

void unpack_into(const Tensor& stored, const std::string& what, void* data, const std::vector<uint64_t>& dims,
                 DType dtype, ssim_layout layout) {
  if (stored.dtype() != dtype || stored.dims() != dims) {
    auto text = [](DType t, const std::vector<uint64_t>& d) {
      std::string s = dtype_name(t) + "(";
      for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
      return s + ")";
    };
    throw TypeMismatch(what + " is " + text(stored.dtype(), stored.dims()) + ", the buffer is " + text(dtype, dims));
  }
  need(data, "data");
  copy_out(stored.data(), data, dims, dtype, layout);
}

}  // namespace ssim::client::c_api

extern "C" const char* ssim_last_error(void) { return ssim::client::c_api::last_error.c_str(); }
