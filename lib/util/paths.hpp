#pragma once
// Path containment, lexically (both sides normalised; resolve links first if they matter).
#include <filesystem>

namespace ssim {

// `inner` is `outer` or lies below it.
bool is_within(const std::filesystem::path& inner, const std::filesystem::path& outer);
// `inner` lies strictly below `outer`.
bool is_below(const std::filesystem::path& inner, const std::filesystem::path& outer);

}  // namespace ssim
