#pragma once
// Writing a file a user named (ssim report -o PATH, and every other output path a user
// gives): a regular file (or a new one) is replaced atomically; a device or a FIFO
// (/dev/null, /dev/stdout, a named pipe) is written through, never renamed over, as
// root could otherwise replace /dev/null with a regular file; a symbolic link is refused
// (whether to write through it or replace it is the user's call: name the target).
#include <functional>
#include <string>
#include <string_view>

namespace ssim {

// Throws UsageError for a link or a directory, EnvironmentError when writing fails
// (naming the path and the cause: "No space left on device" for /dev/full).
void write_user_file(const std::string& path, const std::string& text);

// The same for output made a piece at a time (too large to hold whole): `produce` is
// called once with a function that writes a piece. Nothing replaces a regular file
// unless `produce` returns.
void write_user_file_streamed(const std::string& path,
                              const std::function<void(const std::function<void(std::string_view)>&)>& produce);

}  // namespace ssim
