#pragma once
#include <string>
#include <vector>

namespace ssim::spec {

// The closest candidate to `word` by edit distance, or "" when none is close enough
// to be a plausible typo.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace ssim::spec
