#pragma once
#include <cstddef>
#include <string>

namespace ssim {

// `bytes` random bytes from /dev/urandom as hex (2 x bytes digits): passwords, tokens.
// Throws EnvironmentError naming `what` when /dev/urandom cannot be read.
std::string random_hex(size_t bytes, const std::string& what);

}  // namespace ssim
