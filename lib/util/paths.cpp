#include "lib/util/paths.hpp"

namespace ssim {

namespace fs = std::filesystem;

bool is_within(const fs::path& inner, const fs::path& outer) {
  const auto rel = inner.lexically_normal().lexically_relative(outer.lexically_normal());
  return !rel.empty() && *rel.begin() != "..";
}

bool is_below(const fs::path& inner, const fs::path& outer) {
  return is_within(inner, outer) && inner.lexically_normal().lexically_relative(outer.lexically_normal()) != ".";
}

}  // namespace ssim
