#include "lib/generate/configure_file.hpp"

#include <cctype>

namespace ssim::generate {

namespace {
bool is_tag_char(char c, bool first) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
         (!first && std::isdigit(static_cast<unsigned char>(c)));
}
}  // namespace

Configured configure_text(const std::string& text, const std::map<std::string, std::string>& values) {
  Configured out;
  out.text.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ';') {
      size_t j = i + 1;
      while (j < text.size() && is_tag_char(text[j], j == i + 1)) ++j;
      if (j > i + 1 && j < text.size() && text[j] == ';') {
        const std::string name = text.substr(i + 1, j - i - 1);
        auto it = values.find(name);
        if (it != values.end()) {
          out.text += it->second;
          i = j + 1;
          continue;
        }
        out.unknown_tags.insert(name);
        // Leave the tag as written; its closing ';' may open the next tag.
        out.text.append(text, i, j - i);
        i = j;
        continue;
      }
    }
    out.text += text[i++];
  }
  return out;
}

}  // namespace ssim::generate
