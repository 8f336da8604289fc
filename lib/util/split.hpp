#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ssim {

// Every field between separators, empty ones included: "a,,b," -> {a, "", b, ""}.
std::vector<std::string> split(std::string_view text, char separator);
// The parts with `separator` between them: {a, b} and "," -> "a,b".
std::string join(const std::vector<std::string>& parts, std::string_view separator);

}  // namespace ssim
