#include "lib/spec/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace ssim::spec {

namespace {
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      bool same =
          std::tolower(static_cast<unsigned char>(a[i - 1])) == std::tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
}  // namespace

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  // A candidate that starts the word, or that the word starts ("copies" / "copy"), is a
  // likelier typo than one merely close in spelling.
  for (const auto& c : candidates)
    if (c.size() >= 3 && word.size() >= 3 &&
        (word.rfind(c, 0) == 0 || c.rfind(word, 0) == 0 ||
         (c.size() >= 4 && word.rfind(c.substr(0, c.size() - 1), 0) == 0)))
      return c;
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

}  // namespace ssim::spec
