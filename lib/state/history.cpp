#include "lib/state/history.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "lib/util/atomic_file.hpp"

namespace ssim::state {

namespace fs = std::filesystem;

namespace {
// "" when there is no place of this user's own: then no history, never a shared folder
// (with HOME unset it used to be /tmp/.local/..., which every user of /tmp shares).
fs::path history_file() {
  if (const char* s = std::getenv("SSIM_STATE_HOME"); s && *s) return fs::path(s) / "history";
  if (const char* x = std::getenv("XDG_STATE_HOME"); x && *x) return fs::path(x) / "ssim/history";
  const char* home = std::getenv("HOME");
  if (home && *home) return fs::path(home) / ".local/state/ssim/history";
  if (const passwd* pw = ::getpwuid(::geteuid()); pw && pw->pw_dir && *pw->pw_dir && std::string(pw->pw_dir) != "/")
    return fs::path(pw->pw_dir) / ".local/state/ssim/history";
  return {};
}

std::optional<std::string> latest(const char* key, const std::string& value) {
  if (history_file().empty()) return std::nullopt;
  const auto text = read_file(history_file().string());
  if (!text) return std::nullopt;
  std::optional<std::string> found;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object() && j.value(key, "") == value) found = j.value("path", "");
  }
  return found;
}
}  // namespace

void record_run(const std::string& cwd, const std::string& file, const std::string& path) {
  const fs::path f = history_file();
  if (f.empty()) return;
  std::error_code ec;
  fs::create_directories(f.parent_path(), ec);
  // One short O_APPEND write per line: concurrent runs cannot interleave within a line.
  const std::string line = nlohmann::json{{"cwd", cwd}, {"file", file}, {"path", path}}.dump() + "\n";
  int fd = ::open(f.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;  // history is a convenience; never fail a run over it
  if (::write(fd, line.data(), line.size()) < 0) {
  }
  ::close(fd);
}

std::vector<std::string> experiment_paths() {
  if (history_file().empty()) return {};
  const auto text = read_file(history_file().string());
  std::vector<std::string> lines, out;
  if (!text) return out;
  std::istringstream in(*text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::set<std::string> seen;
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    const auto j = nlohmann::json::parse(*it, nullptr, false);
    if (!j.is_object()) continue;
    const std::string path = j.value("path", "");
    if (!path.empty() && seen.insert(path).second) out.push_back(path);
  }
  return out;
}

std::optional<std::string> latest_from_cwd(const std::string& cwd) { return latest("cwd", cwd); }
std::optional<std::string> latest_from_file(const std::string& file) { return latest("file", file); }

}  // namespace ssim::state
