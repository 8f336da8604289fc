#include "lib/session/launch_record.hpp"

#include <algorithm>
#include <cctype>

#include "lib/state/job_file.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/shell_quote.hpp"

namespace ssim::session {

namespace {
constexpr const char* kHidden = "********";

std::string upper(const std::string& s) {
  std::string out = s;
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}
}  // namespace

bool is_secret_variable(const std::string& name) {
  const std::string n = upper(name);
  for (const char* word : {"PASSWORD", "PASSWD", "SECRET", "TOKEN", "CREDENTIAL", "PRIVATE"})
    if (n.find(word) != std::string::npos) return true;
  return n.size() >= 3 && n.compare(n.size() - 3, 3, "KEY") == 0;
}

std::string shown_value(const std::string& name, const std::string& value, bool& masked) {
  masked = false;
  if (is_secret_variable(name) && !value.empty()) {
    masked = true;
    return kHidden;
  }
  // scheme://user:password@host...: the password goes, the rest is useful.
  const size_t scheme = value.find("://");
  if (scheme == std::string::npos) return value;
  const size_t start = scheme + 3;
  const size_t end = std::min(value.find('/', start), value.size());
  const size_t at = value.rfind('@', end == value.size() ? std::string::npos : end);
  if (at == std::string::npos || at < start) return value;
  const size_t colon = value.find(':', start);
  if (colon == std::string::npos || colon > at || colon + 1 == at) return value;
  masked = true;
  return value.substr(0, colon + 1) + kHidden + value.substr(at);
}

std::optional<LaunchRecord> launch_record(const std::string& run_dir) {
  const auto text = read_file(state::job_file_path(run_dir));
  if (!text) return std::nullopt;
  const auto job = state::decode_job_file(*text);
  if (!job) return std::nullopt;
  LaunchRecord r;
  r.argv = job->argv;
  for (const auto& word : r.argv) r.command += (r.command.empty() ? "" : " ") + shell_quote(word);
  for (const auto& kv : job->env) {
    const size_t eq = kv.find('=');
    const std::string name = kv.substr(0, eq), value = eq == std::string::npos ? "" : kv.substr(eq + 1);
    bool masked = false;
    r.env.emplace_back(name, shown_value(name, value, masked));
    r.masked += masked;
  }
  std::sort(r.env.begin(), r.env.end());
  return r;
}

}  // namespace ssim::session
