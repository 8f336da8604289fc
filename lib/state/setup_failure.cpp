#include "lib/state/setup_failure.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <vector>

#include "lib/util/file_tail.hpp"
#include "lib/util/split.hpp"
#include "lib/util/utf8.hpp"

namespace ssim::state {

namespace {

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool names_an_error(const std::string& line) {
  const std::string l = lower(line);
  for (const char* w : {"error", "unknown", "not found", "no such", "cannot", "can't", "unable", "failed",
                        "permission denied", "not a valid", "invalid"})
    if (l.find(w) != std::string::npos) return true;
  return false;
}

std::optional<int> parse_count(const std::string& s) {
  if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), ::isdigit)) return std::nullopt;
  return std::stoi(s);
}

}  // namespace

std::string setup_error_line(const std::string& stderr_text) {
  std::vector<std::string> lines;
  for (const auto& l : split(stderr_text, '\n'))
    if (!trimmed(l).empty()) lines.push_back(trimmed(l));
  if (lines.empty()) return "";
  std::string said = lines.back();
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!names_an_error(lines[i])) continue;
    said = lines[i];
    // Lmod: "Lmod has detected the following error: The following module(s) are unknown:"
    // then the names on the next line.
    for (const char* prefix : {"Lmod has detected the following error:", "ERROR:"})
      if (said.rfind(prefix, 0) == 0) said = trimmed(said.substr(std::string(prefix).size()));
    if (!said.empty() && said.back() == ':' && i + 1 < lines.size()) said += " " + lines[i + 1];
    break;
  }
  if (said.size() > 300) said = said.substr(0, 297) + "...";
  return sanitized_utf8(said, false);
}

std::optional<SetupFailure> parse_setup_failure(const std::string& content) {
  const auto first = content.find('\n');
  const auto second = first == std::string::npos ? first : content.find('\n', first + 1);
  const auto third = second == std::string::npos ? second : content.find('\n', second + 1);
  if (third == std::string::npos) return std::nullopt;  // cut off while written
  SetupFailure f;
  const auto line = parse_count(content.substr(0, first));
  const auto code = parse_count(content.substr(first + 1, second - first - 1));
  if (!line || !code) return std::nullopt;
  f.line = *line;
  f.exit_code = *code;
  f.text = sanitized_utf8(content.substr(second + 1, third - second - 1), false);
  f.said = setup_error_line(content.substr(third + 1));
  return f;
}

std::string describe(const SetupFailure& f) {
  if (f.exit_code == 0)
    return "setup line " + std::to_string(f.line) + " ended the step before the program started: " + f.text;
  std::string s =
      "setup line " + std::to_string(f.line) + " failed: " + f.text + " (exit " + std::to_string(f.exit_code) + ")";
  if (!f.said.empty()) s += ": " + f.said;
  return s;
}

std::optional<SetupFailure> read_setup_failure(const std::string& run_dir) {
  const auto content = read_regular_file(run_dir + "/" + kSetupFailedFile, 64 * 1024, true);
  if (!content) return std::nullopt;
  return parse_setup_failure(*content);
}

}  // namespace ssim::state

namespace ssim::state {

bool setup_never_finished(const std::string& run_dir) {
  struct stat st {};
  return lstat((run_dir + "/" + kSetupStderrFile).c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace ssim::state
