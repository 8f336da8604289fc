#pragma once
// Copies between row-major (C) and column-major (Fortran) arrays of the same dims, for
// the C and Fortran clients: the database always holds row-major tensors, so a Fortran
// a(i,j) is numpy's a[i-1, j-1]. `dims` are in index order (Fortran's shape(a)).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ssim::client {

void fortran_to_c_order(const void* src, void* dst, const std::vector<uint64_t>& dims, size_t element_bytes);
void c_to_fortran_order(const void* src, void* dst, const std::vector<uint64_t>& dims, size_t element_bytes);

}  // namespace ssim::client
