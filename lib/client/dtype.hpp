#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace ssim::client {

// Element types of tensors; the values are the wire-format codes (WIRE_FORMAT.md).
enum class DType : uint8_t {
  F64 = 1,
  F32 = 2,
  F16 = 3,
  BF16 = 4,
  I8 = 5,
  I16 = 6,
  I32 = 7,
  I64 = 8,
  U8 = 9,
  U16 = 10,
  U32 = 11,
  U64 = 12,
  Bool = 13,
};

size_t dtype_size(DType t);
std::string dtype_name(DType t);                 // "f64", "bf16", ...
DType dtype_from_name(const std::string& name);  // throws std::invalid_argument
bool valid_dtype_code(uint8_t code);

template <class T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<double>() {
  return DType::F64;
}
template <>
constexpr DType dtype_of<float>() {
  return DType::F32;
}
template <>
constexpr DType dtype_of<int8_t>() {
  return DType::I8;
}
template <>
constexpr DType dtype_of<int16_t>() {
  return DType::I16;
}
template <>
constexpr DType dtype_of<int32_t>() {
  return DType::I32;
}
template <>
constexpr DType dtype_of<int64_t>() {
  return DType::I64;
}
template <>
constexpr DType dtype_of<uint8_t>() {
  return DType::U8;
}
template <>
constexpr DType dtype_of<uint16_t>() {
  return DType::U16;
}
template <>
constexpr DType dtype_of<uint32_t>() {
  return DType::U32;
}
template <>
constexpr DType dtype_of<uint64_t>() {
  return DType::U64;
}
template <>
constexpr DType dtype_of<bool>() {
  return DType::Bool;
}

}  // namespace ssim::client
