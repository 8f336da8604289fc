#include "lib/client/dtype.hpp"

#include <stdexcept>

namespace ssim::client {

namespace {
struct Info {
  DType type;
  const char* name;
  size_t size;
};
constexpr Info kInfo[] = {{DType::F64, "f64", 8},   {DType::F32, "f32", 4}, {DType::F16, "f16", 2},
                          {DType::BF16, "bf16", 2}, {DType::I8, "i8", 1},   {DType::I16, "i16", 2},
                          {DType::I32, "i32", 4},   {DType::I64, "i64", 8}, {DType::U8, "u8", 1},
                          {DType::U16, "u16", 2},   {DType::U32, "u32", 4}, {DType::U64, "u64", 8},
                          {DType::Bool, "bool", 1}};
}  // namespace

size_t dtype_size(DType t) {
  for (const auto& i : kInfo)
    if (i.type == t) return i.size;
  throw std::invalid_argument("unknown dtype code " + std::to_string(static_cast<int>(t)));
}

std::string dtype_name(DType t) {
  for (const auto& i : kInfo)
    if (i.type == t) return i.name;
  return "dtype" + std::to_string(static_cast<int>(t));
}

DType dtype_from_name(const std::string& name) {
  for (const auto& i : kInfo)
    if (name == i.name) return i.type;
  throw std::invalid_argument("unknown dtype \"" + name + "\"");
}

bool valid_dtype_code(uint8_t code) { return code >= 1 && code <= 13; }

}  // namespace ssim::client
