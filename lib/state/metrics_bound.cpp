#include "lib/state/metrics_bound.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <tuple>

#include "lib/util/atomic_file.hpp"

namespace ssim::state {

std::uintmax_t metrics_file_limit(std::string* problem) {
  constexpr std::uintmax_t kDefault = 16u << 20;
  const char* v = std::getenv("SSIM_METRICS_LIMIT");
  if (!v || !*v) return kDefault;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  if (*end == '\0' && n >= 4096 && v[0] != '-') return n;
  if (problem)
    *problem = std::string("SSIM_METRICS_LIMIT=") + v + " is not a number of bytes of at least 4096: 16 MiB is used";
  return kDefault;
}

std::vector<std::string_view> thin_metric_lines(std::string_view text, const Goal* goal) {
  struct Line {
    std::string_view text;
    bool keep = false;
  };
  struct Series {
    size_t count = 0;
    size_t last = 0;
    size_t highest = 0;
    long long highest_step = -1;
    bool goal_met = false;
  };
  std::vector<Line> lines;
  std::map<std::pair<std::string, std::string>, Series> series;
  for (size_t at = 0; at < text.size();) {
    size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) break;  // a torn last line: not a point
    const std::string_view line = text.substr(at, nl - at + 1);
    at = nl + 1;
    const auto p = parse_metric_json(std::string(line.substr(0, line.size() - 1)));
    if (!p) continue;
    const size_t i = lines.size();
    lines.push_back({line});
    Series& s = series[{p->name, p->phase}];
    if (s.count % 2 == 0) lines[i].keep = true;  // the first, and every other one after it
    ++s.count;
    s.last = i;
    if (p->step && *p->step >= s.highest_step) s.highest_step = *p->step, s.highest = i;
    if (goal && !s.goal_met && p->name == goal->metric && meets(*goal, p->value)) {
      s.goal_met = true;
      lines[i].keep = true;
    }
  }
  for (const auto& [key, s] : series) {
    lines[s.last].keep = true;
    if (s.highest_step >= 0) lines[s.highest].keep = true;
  }
  std::vector<std::string_view> kept;
  for (const auto& l : lines)
    if (l.keep) kept.push_back(l.text);
  return kept;
}

namespace {

struct LockedFile {
  int fd = -1;
  ~LockedFile() {
    if (fd >= 0) ::close(fd);  // the lock goes with it
  }
};

}  // namespace

bool bound_metrics_file(const std::string& path, std::uintmax_t limit, const Goal* goal) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || static_cast<std::uintmax_t>(st.st_size) <= limit)
    return false;
  LockedFile f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
  if (f.fd < 0 || ::flock(f.fd, LOCK_EX | LOCK_NB) != 0) return false;
  struct stat locked {
  }, now{};
  if (::fstat(f.fd, &locked) != 0 || ::stat(path.c_str(), &now) != 0 || locked.st_ino != now.st_ino) return false;
  auto text = read_file(path);  // under the lock: every writer waits
  if (!text) return false;
  std::string kept = std::move(*text);
  while (kept.size() > limit / 2) {
    std::string next;
    for (auto line : thin_metric_lines(kept, goal)) next += line;
    if (next.size() == kept.size()) break;  // nothing more to drop: first and last points only
    kept = std::move(next);
  }
  write_file_atomically(path, kept, st.st_mode & 07777);
  return true;
}

}  // namespace ssim::state
