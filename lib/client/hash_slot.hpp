#pragma once
#include <cstdint>
#include <string_view>

namespace ssim::client {

// Redis Cluster's key slot: CRC16 (XMODEM) of the key, or of its hash tag, mod 16384.
uint16_t crc16(std::string_view data);
uint16_t hash_slot(std::string_view key);

}  // namespace ssim::client
