#pragma once
#include <string>
#include <vector>

namespace ssim {

// POSIX shell single-quoting: the result is one word that the shell takes literally.
// Used where a command must be shown or written into a script; processes themselves
// are always spawned with argv.
std::string shell_quote(const std::string& word);
std::string shell_join(const std::vector<std::string>& argv);

}  // namespace ssim
