#pragma once
#include <string>

namespace ssim {

// The last `lines` lines of a file (without the final newline), reading at most its
// last `max_bytes`; "" when it is missing or empty.
std::string last_lines(const std::string& path, int lines, long max_bytes = 8192);

}  // namespace ssim
