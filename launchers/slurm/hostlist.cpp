#include <cctype>
#include "launchers/slurm/hostlist.hpp"

#include <cstdio>

namespace ssim::launchers::slurm {

namespace {

// Splits on commas that are not inside brackets.
std::vector<std::string> top_level_items(const std::string& list) {
  std::vector<std::string> items;
  std::string cur;
  int depth = 0;
  for (char c : list) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth < 0) throw std::invalid_argument("unbalanced ']' in hostlist \"" + list + "\"");
    if (c == ',' && depth == 0) {
      if (!cur.empty()) items.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (depth != 0) throw std::invalid_argument("unbalanced '[' in hostlist \"" + list + "\"");
  if (!cur.empty()) items.push_back(cur);
  return items;
}

std::vector<std::string> expand_range(const std::string& ranges, const std::string& list) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= ranges.size()) {
    size_t j = ranges.find(',', i);
    if (j == std::string::npos) j = ranges.size();
    const std::string part = ranges.substr(i, j - i);
    i = j + 1;
    if (part.empty()) throw std::invalid_argument("empty range in hostlist \"" + list + "\"");
    const size_t dash = part.find('-');
    const std::string lo = part.substr(0, dash);
    const std::string hi = dash == std::string::npos ? lo : part.substr(dash + 1);
    if (lo.empty() || hi.empty() || lo.find_first_not_of("0123456789") != std::string::npos ||
        hi.find_first_not_of("0123456789") != std::string::npos)
      throw std::invalid_argument("bad range \"" + part + "\" in hostlist \"" + list + "\"");
    const unsigned long a = std::stoul(lo), b = std::stoul(hi);
    if (b < a || b - a > 100000) throw std::invalid_argument("bad range \"" + part + "\" in hostlist \"" + list + "\"");
    const size_t width = lo.size() > 1 && lo[0] == '0' ? lo.size() : 0;  // zero padding
    for (unsigned long n = a; n <= b; ++n) {
      std::string s = std::to_string(n);
      if (s.size() < width) s.insert(0, width - s.size(), '0');
      out.push_back(s);
    }
  }
  return out;
}

void expand_item(const std::string& item, const std::string& list, std::vector<std::string>& out) {
  const size_t open = item.find('[');
  if (open == std::string::npos) {
    out.push_back(item);
    return;
  }
  const size_t close = item.find(']', open);
  const std::string prefix = item.substr(0, open);
  const std::string rest = item.substr(close + 1);
  for (const auto& n : expand_range(item.substr(open + 1, close - open - 1), list))
    expand_item(prefix + n + rest, list, out);  // later bracket groups multiply out
}

}  // namespace

std::vector<std::string> expand_hostlist(const std::string& list) {
  std::vector<std::string> out;
  for (const auto& item : top_level_items(list)) expand_item(item, list, out);
  return out;
}

std::vector<int> expand_counts(const std::string& list) {
  std::vector<int> out;
  size_t i = 0;
  auto number = [&](const char* what) {
    size_t j = i;
    while (j < list.size() && std::isdigit(static_cast<unsigned char>(list[j]))) ++j;
    if (j == i || j - i > 6) throw std::invalid_argument(std::string("expected ") + what + " in \"" + list + "\"");
    const int n = std::stoi(list.substr(i, j - i));
    i = j;
    return n;
  };
  while (i < list.size()) {
    const int count = number("a CPU count");
    int times = 1;
    if (list.compare(i, 2, "(x") == 0) {
      i += 2;
      times = number("a repeat count");
      if (i >= list.size() || list[i] != ')') throw std::invalid_argument("unclosed ( in \"" + list + "\"");
      ++i;
    }
    if (times > 100000) throw std::invalid_argument("too many nodes in \"" + list + "\"");
    out.insert(out.end(), times, count);
    if (i < list.size()) {
      if (list[i] != ',')
        throw std::invalid_argument("unexpected '" + std::string(1, list[i]) + "' in \"" + list + "\"");
      ++i;
    }
  }
  return out;
}

}  // namespace ssim::launchers::slurm
