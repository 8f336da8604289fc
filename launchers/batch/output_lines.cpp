#include "launchers/batch/output_lines.hpp"

#include <sstream>

namespace ssim::launchers {

bool every_line_matches(const std::string& text, std::initializer_list<const char*> benign) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    bool ok = false;
    for (const char* b : benign) ok = ok || line.find(b) != std::string::npos;
    if (!ok) return false;
  }
  return true;
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '\t')) line.pop_back();
  return line;
}

}  // namespace ssim::launchers
