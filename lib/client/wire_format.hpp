#pragma once
// The tensor header of WIRE_FORMAT.md: encode and decode, nothing else.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/client/dtype.hpp"

namespace ssim::client {

inline constexpr size_t kHeaderFixed = 24;
inline constexpr size_t kMaxRank = 32;
inline constexpr uint32_t kDefaultChunkBytes = 1u << 20;

struct TensorHeader {
  DType dtype = DType::F64;
  std::vector<uint64_t> dims;
  uint32_t chunks = 0;  // 0: payload inline after the header
  uint32_t chunk_bytes = kDefaultChunkBytes;
  uint64_t payload_bytes = 0;

  size_t size() const { return kHeaderFixed + 8 * dims.size(); }
};

// Elements times dtype size; throws TypeMismatch on overflow.
uint64_t payload_size(DType dtype, const std::vector<uint64_t>& dims);
std::string encode_header(const TensorHeader& h);
// Parses the header at the start of `bytes` (at least the header). `value_size` is the
// size of the whole stored value, checked against an inline payload. Throws
// TypeMismatch when it is not an ssim tensor.
TensorHeader decode_header(std::string_view bytes, uint64_t value_size, const std::string& key);
// How many bytes the header starting with these kHeaderFixed bytes has in all.
size_t header_size(std::string_view fixed);

// True when `key` holds a Redis hash tag: '{', then at least one character, then '}'.
bool has_hash_tag(std::string_view key);
// The prefix of chunk keys: the key itself when tagged, else "{key}".
std::string tagged(const std::string& key);
std::string chunk_key(const std::string& key, uint32_t index);

}  // namespace ssim::client
