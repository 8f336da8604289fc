#include "lib/client/hash_slot.hpp"

#include <array>

namespace ssim::client {

namespace {
constexpr std::array<uint16_t, 256> make_table() {
  std::array<uint16_t, 256> t{};
  for (int i = 0; i < 256; ++i) {
    uint16_t c = static_cast<uint16_t>(i << 8);
    for (int b = 0; b < 8; ++b) c = static_cast<uint16_t>((c & 0x8000) ? (c << 1) ^ 0x1021 : c << 1);
    t[static_cast<size_t>(i)] = c;
  }
  return t;
}
constexpr auto kTable = make_table();
}  // namespace

uint16_t crc16(std::string_view data) {
  uint16_t crc = 0;
  for (unsigned char c : data) crc = static_cast<uint16_t>((crc << 8) ^ kTable[((crc >> 8) ^ c) & 0xff]);
  return crc;
}

uint16_t hash_slot(std::string_view key) {
  const size_t open = key.find('{');
  if (open != std::string_view::npos) {
    const size_t close = key.find('}', open + 1);
    if (close != std::string_view::npos && close != open + 1) key = key.substr(open + 1, close - open - 1);
  }
  return crc16(key) & 16383;
}

}  // namespace ssim::client
