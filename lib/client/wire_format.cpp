#include "lib/client/wire_format.hpp"

#include <algorithm>
#include <cstring>

#include "lib/client/errors.hpp"

namespace ssim::client {

namespace {
template <class T>
void put_le(std::string& out, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) out += static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff);
}
template <class T>
T get_le(std::string_view s, size_t off) {
  uint64_t v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(s[off + i])) << (8 * i);
  return static_cast<T>(v);
}
}  // namespace

uint64_t payload_size(DType dtype, const std::vector<uint64_t>& dims) {
  uint64_t n = dtype_size(dtype);
  for (uint64_t d : dims) {
    if (d != 0 && n > UINT64_MAX / d) throw TypeMismatch("tensor too large");
    n *= d;
  }
  return n;
}

std::string encode_header(const TensorHeader& h) {
  std::string out;
  out.reserve(h.size());
  out += "SSTN";
  out += static_cast<char>(1);
  out += static_cast<char>(h.dtype);
  out += static_cast<char>(h.dims.size());
  out += static_cast<char>(0);
  put_le<uint32_t>(out, h.chunks);
  put_le<uint32_t>(out, h.chunk_bytes);
  put_le<uint64_t>(out, h.payload_bytes);
  for (uint64_t d : h.dims) put_le<uint64_t>(out, d);
  return out;
}

size_t header_size(std::string_view fixed) {
  return kHeaderFixed + 8 * static_cast<size_t>(std::min<uint8_t>(static_cast<uint8_t>(fixed[6]), kMaxRank + 1));
}

TensorHeader decode_header(std::string_view v, uint64_t value_size, const std::string& key) {
  if (v.size() < kHeaderFixed || v.substr(0, 4) != "SSTN")
    throw TypeMismatch("\"" + key + "\" does not hold an ssim tensor");
  if (static_cast<uint8_t>(v[4]) != 1)
    throw TypeMismatch("\"" + key + "\" holds tensor format version " + std::to_string(static_cast<int>(v[4])) +
                       "; this client reads version 1");
  TensorHeader h;
  const auto code = static_cast<uint8_t>(v[5]);
  if (!valid_dtype_code(code)) throw TypeMismatch("\"" + key + "\" has an unknown dtype code");
  h.dtype = static_cast<DType>(code);
  const size_t rank = static_cast<uint8_t>(v[6]);
  if (rank > kMaxRank || v.size() < kHeaderFixed + 8 * rank)
    throw TypeMismatch("\"" + key + "\" has a truncated header");
  h.chunks = get_le<uint32_t>(v, 8);
  h.chunk_bytes = get_le<uint32_t>(v, 12);
  h.payload_bytes = get_le<uint64_t>(v, 16);
  for (size_t i = 0; i < rank; ++i) h.dims.push_back(get_le<uint64_t>(v, kHeaderFixed + 8 * i));
  if (payload_size(h.dtype, h.dims) != h.payload_bytes)
    throw TypeMismatch("\"" + key + "\" has an inconsistent header");
  const uint64_t stored = h.chunks == 0 ? value_size - h.size() : 0;
  if (h.chunks == 0 && stored != h.payload_bytes)
    throw TypeMismatch("\"" + key + "\" holds " + std::to_string(stored) + " payload bytes, expected " +
                       std::to_string(h.payload_bytes));
  if (h.chunks > 0 && (h.chunk_bytes == 0 || (h.payload_bytes + h.chunk_bytes - 1) / h.chunk_bytes != h.chunks))
    throw TypeMismatch("\"" + key + "\" has an inconsistent chunk count");
  return h;
}

bool has_hash_tag(std::string_view key) {
  const size_t open = key.find('{');
  if (open == std::string_view::npos) return false;
  const size_t close = key.find('}', open + 1);
  return close != std::string_view::npos && close > open + 1;
}

std::string tagged(const std::string& key) { return has_hash_tag(key) ? key : "{" + key + "}"; }

std::string chunk_key(const std::string& key, uint32_t index) { return tagged(key) + ".c" + std::to_string(index); }

}  // namespace ssim::client
