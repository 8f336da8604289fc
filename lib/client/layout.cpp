#include "lib/client/layout.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace ssim::client {

namespace {

constexpr uint64_t kTile = 32;  // 32 x 32 elements of 8 bytes: two tiles fit in L1

// dst[...] = src[...] over every index of `dims`, with per-axis element strides. Both
// orders have a contiguous axis (p for dst, q for src); the copy walks tiles of the
// (q, p) plane so that reads and writes both stay in cache, for each index of the others.
template <class T>
void permute(const T* src, T* dst, const std::vector<uint64_t>& dims, const std::vector<uint64_t>& src_stride,
             const std::vector<uint64_t>& dst_stride) {
  const size_t n = dims.size();
  const size_t p = static_cast<size_t>(std::find(dst_stride.begin(), dst_stride.end(), 1) - dst_stride.begin());
  const size_t q = static_cast<size_t>(std::find(src_stride.begin(), src_stride.end(), 1) - src_stride.begin());
  std::vector<size_t> others;
  for (size_t k = 0; k < n; ++k)
    if (k != p && k != q) others.push_back(k);
  std::vector<uint64_t> idx(others.size(), 0);
  const uint64_t P = dims[p], Q = dims[q], sp = src_stride[p], dq = dst_stride[q];
  for (;;) {
    uint64_t s0 = 0, d0 = 0;
    for (size_t i = 0; i < others.size(); ++i) {
      s0 += idx[i] * src_stride[others[i]];
      d0 += idx[i] * dst_stride[others[i]];
    }
    for (uint64_t x0 = 0; x0 < Q; x0 += kTile)
      for (uint64_t y0 = 0; y0 < P; y0 += kTile) {
        const uint64_t x1 = std::min(Q, x0 + kTile), y1 = std::min(P, y0 + kTile);
        for (uint64_t x = x0; x < x1; ++x)
          for (uint64_t y = y0; y < y1; ++y) dst[d0 + x * dq + y] = src[s0 + y * sp + x];
      }
    size_t k = 0;  // the odometer over the other axes
    for (; k < others.size(); ++k) {
      if (++idx[k] < dims[others[k]]) break;
      idx[k] = 0;
    }
    if (k == others.size()) return;
  }
}

std::vector<uint64_t> c_strides(const std::vector<uint64_t>& dims) {
  std::vector<uint64_t> s(dims.size());
  uint64_t acc = 1;
  for (size_t k = dims.size(); k-- > 0;) {
    s[k] = acc;
    acc *= dims[k];
  }
  return s;
}

std::vector<uint64_t> fortran_strides(const std::vector<uint64_t>& dims) {
  std::vector<uint64_t> s(dims.size());
  uint64_t acc = 1;
  for (size_t k = 0; k < dims.size(); ++k) {
    s[k] = acc;
    acc *= dims[k];
  }
  return s;
}

void copy(const void* src, void* dst, const std::vector<uint64_t>& dims, size_t bytes,
          const std::vector<uint64_t>& src_stride, const std::vector<uint64_t>& dst_stride) {
  uint64_t elements = 1;
  size_t axes_over_one = 0;
  for (uint64_t d : dims) {
    elements *= d;
    axes_over_one += d > 1;
  }
  if (elements == 0) return;
  if (axes_over_one <= 1) {  // one axis that matters: the same bytes either way
    std::memcpy(dst, src, elements * bytes);
    return;
  }
  // Axes of size 1 have equal strides in both orders and would tie with the
  // contiguous axis: drop them.
  std::vector<uint64_t> d, ss, ds;
  for (size_t k = 0; k < dims.size(); ++k)
    if (dims[k] > 1) {
      d.push_back(dims[k]);
      ss.push_back(src_stride[k]);
      ds.push_back(dst_stride[k]);
    }
  switch (bytes) {
    case 1:
      return permute(static_cast<const uint8_t*>(src), static_cast<uint8_t*>(dst), d, ss, ds);
    case 2:
      return permute(static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst), d, ss, ds);
    case 4:
      return permute(static_cast<const uint32_t*>(src), static_cast<uint32_t*>(dst), d, ss, ds);
    case 8:
      return permute(static_cast<const uint64_t*>(src), static_cast<uint64_t*>(dst), d, ss, ds);
  }
  throw std::invalid_argument("element size " + std::to_string(bytes) + " is not 1, 2, 4 or 8");
}

}  // namespace

void fortran_to_c_order(const void* src, void* dst, const std::vector<uint64_t>& dims, size_t element_bytes) {
  copy(src, dst, dims, element_bytes, fortran_strides(dims), c_strides(dims));
}

void c_to_fortran_order(const void* src, void* dst, const std::vector<uint64_t>& dims, size_t element_bytes) {
  copy(src, dst, dims, element_bytes, c_strides(dims), fortran_strides(dims));
}

}  // namespace ssim::client
