#pragma once
#include <optional>
#include <string>

namespace ssim {

// The last `lines` lines of a file (without the final newline), reading at most its
// last `max_bytes`; "" when it is missing or empty.
// Only regular files of this user are read (a FIFO, device, link or another user's file
// in its place reads as missing).
std::string last_lines(const std::string& path, int lines, long max_bytes = 8192);

// A whole regular file of at most `max_bytes`, never blocking; nullopt when it is
// missing, not a regular file, or larger, and with `own_only`, when another user owns
// it (a FIFO, a device or a stranger's file planted where ssim reads must not steer it).
// Both readers here read what programs may have written: a link in the file's place is
// never followed (a link to another file must not put that file's text in a note).
std::optional<std::string> read_regular_file(const std::string& path, long max_bytes, bool own_only = false);

// A file of a run directory, where the program may have put anything: read only when it
// is a regular file (not a link, FIFO or device) owned by this user; nullopt otherwise.
// No size bound beyond the file's own (metrics files, status and journal files).
std::optional<std::string> read_run_file(const std::string& path);

}  // namespace ssim
