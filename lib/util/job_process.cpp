#include "lib/util/job_process.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace ssim {

namespace {

bool read_proc(const std::string& path, std::string& out, size_t limit = 1 << 20) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  out.clear();
  char buf[8192];
  ssize_t n = 0;
  while ((n = ::read(fd, buf, sizeof buf)) > 0 && out.size() < limit) out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return n >= 0;
}

// Ancestors are followed this far at most: deeper trees are not how ssim starts jobs.
constexpr int kMaxDepth = 32;

}  // namespace

std::optional<ProcessFacts> process_facts(int pid) {
  if (pid <= 0) return std::nullopt;
  std::string text;
  if (!read_proc("/proc/" + std::to_string(pid) + "/stat", text)) return std::nullopt;
  const size_t close = text.rfind(')');  // the command name may hold blanks and ')'
  if (close == std::string::npos || close + 2 >= text.size()) return std::nullopt;
  std::vector<std::string> f;
  size_t i = close + 2;
  while (i < text.size() && f.size() < 20) {
    size_t j = text.find(' ', i);
    if (j == std::string::npos) j = text.size();
    f.push_back(text.substr(i, j - i));
    i = j + 1;
  }
  if (f.size() < 20 || f[0].empty()) return std::nullopt;
  ProcessFacts p;
  p.pid = pid;
  p.state = f[0][0];
  p.parent = std::atoi(f[1].c_str());
  p.group = std::atoi(f[2].c_str());
  p.start_ticks = f[19];
  return p;
}

bool environ_holds(int pid, const std::string& entry) {
  std::string env;
  if (!read_proc("/proc/" + std::to_string(pid) + "/environ", env)) return false;
  size_t i = 0;
  while (i < env.size()) {
    size_t j = env.find('\0', i);
    if (j == std::string::npos) j = env.size();
    if (env.compare(i, j - i, entry) == 0) return true;
    i = j + 1;
  }
  return false;
}

std::string executable_of(int pid) {
  char buf[4096];
  const ssize_t n = ::readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

bool belongs_to_job(int pid, const std::string& ticks, const std::string& run_dir, std::span<const int> trusted) {
  if (pid <= 1 || ticks.empty() || run_dir.empty()) return false;
  const auto self = process_facts(pid);
  if (!self || self->start_ticks != ticks || self->state == 'Z' || self->state == 'X') return false;
  const std::string mark = "SSIM_RUN_DIR=" + run_dir;
  int p = pid;
  for (int depth = 0; depth < kMaxDepth && p > 1; ++depth) {
    if (std::find(trusted.begin(), trusted.end(), p) != trusted.end()) return true;
    if (environ_holds(p, mark)) return true;
    const auto facts = process_facts(p);
    if (!facts) return false;
    p = facts->parent;
  }
  return false;
}

bool is_job_supervisor(int pid, const std::string& ticks, const std::string& supervisor_exe, int recorded,
                       const std::string& recorded_ticks) {
  if (pid <= 1 || ticks.empty() || recorded <= 1 || recorded_ticks.empty()) return false;
  const auto self = process_facts(pid);
  if (!self || self->start_ticks != ticks || self->state == 'Z') return false;
  const auto boss = process_facts(recorded);
  if (!boss || boss->start_ticks != recorded_ticks) return false;
  if (pid != recorded && self->parent != recorded) return false;
  char real[4096];
  const std::string exe = ::realpath(supervisor_exe.c_str(), real) ? std::string(real) : supervisor_exe;
  return executable_of(pid) == exe;
}

}  // namespace ssim
