#pragma once
#include <map>
#include <set>
#include <string>

namespace ssim::generate {

struct Configured {
  std::string text;
  std::set<std::string> unknown_tags;  // ;name; tags with no value, left as written
};

// Replaces ;name; tags whose name is in `values`. A tag is ';' + identifier + ';'.
Configured configure_text(const std::string& text, const std::map<std::string, std::string>& values);

}  // namespace ssim::generate
