#include "lib/util/split.hpp"

namespace ssim {

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> out;
  size_t i = 0;
  for (;;) {
    const size_t j = text.find(separator, i);
    out.emplace_back(text.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i));
    if (j == std::string_view::npos) return out;
    i = j + 1;
  }
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += separator;
    out += parts[i];
  }
  return out;
}

}  // namespace ssim
