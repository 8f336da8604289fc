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

}  // namespace ssim
