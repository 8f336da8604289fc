#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ssim {

// Every field between separators, empty ones included: "a,,b," -> {a, "", b, ""}.
std::vector<std::string> split(std::string_view text, char separator);

}  // namespace ssim
