#include "lib/client/layout.hpp"

#include <catch2/catch.hpp>
#include <numeric>

using namespace ssim::client;

namespace {
// a(i0, i1, ...) at its Fortran offset holds the value of its C offset, so the row-major
// copy must come out 0, 1, 2, ...
template <class T>
std::vector<T> fortran_array_of_c_offsets(const std::vector<uint64_t>& dims) {
  uint64_t n = 1;
  for (auto d : dims) n *= d;
  std::vector<T> f(n);
  std::vector<uint64_t> idx(dims.size(), 0);
  for (uint64_t c = 0; c < n; ++c) {
    uint64_t off = 0, stride = 1;
    for (size_t k = 0; k < dims.size(); ++k) {
      off += idx[k] * stride;
      stride *= dims[k];
    }
    f[off] = static_cast<T>(c);
    for (size_t k = dims.size(); k-- > 0;) {  // next C index
      if (++idx[k] < dims[k]) break;
      idx[k] = 0;
    }
  }
  return f;
}

template <class T>
void check_round_trip(const std::vector<uint64_t>& dims) {
  const auto f = fortran_array_of_c_offsets<T>(dims);
  std::vector<T> c(f.size()), expected(f.size()), back(f.size());
  std::iota(expected.begin(), expected.end(), T(0));
  fortran_to_c_order(f.data(), c.data(), dims, sizeof(T));
  CHECK(c == expected);
  c_to_fortran_order(c.data(), back.data(), dims, sizeof(T));
  CHECK(back == f);
}
}  // namespace

TEST_CASE("a Fortran array comes out row-major with the same dims") {
  // 2 x 3: memory a11 a21 a12 a22 a13 a23 -> a11 a12 a13 a21 a22 a23
  const std::vector<double> f{11, 21, 12, 22, 13, 23};
  std::vector<double> c(6);
  fortran_to_c_order(f.data(), c.data(), {2, 3}, sizeof(double));
  CHECK(c == std::vector<double>{11, 12, 13, 21, 22, 23});
}

TEST_CASE("layout copies hold for ranks 1-4, odd sizes, unit axes and every element size") {
  check_round_trip<double>({7});
  check_round_trip<double>({33, 65});  // crosses tile edges
  check_round_trip<float>({3, 1, 5});
  check_round_trip<int64_t>({2, 3, 4});
  check_round_trip<int32_t>({5, 4, 3, 2});
  check_round_trip<int16_t>({1, 40, 1, 37});
  check_round_trip<uint8_t>({9, 10, 11});
  check_round_trip<double>({1, 1});
  check_round_trip<double>({});
  check_round_trip<double>({0, 4});
}
