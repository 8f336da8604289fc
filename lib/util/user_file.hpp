#pragma once
// Writing a file a user named (ssim report -o PATH, and every other output path a user
// gives): a regular file (or a new one) is replaced atomically; a device or a FIFO
// (/dev/null, /dev/stdout, a named pipe) is written through, never renamed over, as
// root could otherwise replace /dev/null with a regular file; a symbolic link is refused
// (whether to write through it or replace it is the user's call: name the target).
#include <string>

namespace ssim {

// Throws UsageError for a link or a directory, EnvironmentError when writing fails
// (naming the path and the cause: "No space left on device" for /dev/full).
void write_user_file(const std::string& path, const std::string& text);

}  // namespace ssim
