#pragma once
#include <optional>
#include <string>

namespace ssim {

// Writes `text` to `path` through a temporary file in the same directory and a rename,
// so a reader sees either the old or the new content, never a torn one.
void write_file_atomically(const std::string& path, const std::string& text, unsigned mode = 0644);

// The whole file, or nullopt when it does not exist or cannot be read.
std::optional<std::string> read_file(const std::string& path);

}  // namespace ssim
