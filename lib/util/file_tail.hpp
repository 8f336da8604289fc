#pragma once
#include <optional>
#include <string>

namespace ssim {

// The last `lines` lines of a file (without the final newline), reading at most its
// last `max_bytes`; "" when it is missing or empty.
// Only regular files are read (a FIFO or device in its place reads as missing).
std::string last_lines(const std::string& path, int lines, long max_bytes = 8192);

// A whole regular file of at most `max_bytes`, never blocking; nullopt when it is
// missing, not a regular file, or larger, and with `own_only`, when another user owns
// it (a FIFO, a device or a stranger's file planted where ssim reads must not steer it).
std::optional<std::string> read_regular_file(const std::string& path, long max_bytes, bool own_only = false);

}  // namespace ssim
