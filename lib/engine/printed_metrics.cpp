#include "lib/engine/printed_metrics.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/client/metrics_file.hpp"
#include "lib/util/file_tail.hpp"
#include "lib/util/split.hpp"

namespace ssim::engine {

std::string out_offset_record(long long offset) { return "{\"out_offset\":" + std::to_string(offset) + "}\n"; }

namespace {
// The last offset of NAME.out a run stamped (0: none).
long long stamped_so_far(const std::string& run_dir) {
  long long offset = 0;
  for (const auto& line : split(read_run_file(state::stamped_metrics_path(run_dir, 0)).value_or(""), '\n'))
    if (const long long o = state::out_offset_of(line); o >= 0) offset = o;
  return offset;
}
}  // namespace

void PrintedMetrics::stamp(const std::string& run_dir, const std::string& lines, long long offset) {
  if (lines.empty()) return;  // no metric line: no file
  metrics::append_locked(state::stamped_metrics_path(run_dir, 0), lines + out_offset_record(offset));
}

void PrintedMetrics::look(const std::string& name, const std::string& run_dir, double now) {
  const std::string out = run_dir + "/" + name + ".out";
  struct stat st {};
  if (::lstat(out.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  auto [it, first] = watched_.try_emplace(name);
  auto& w = it->second;
  if (first) w.read = stamped_so_far(run_dir);  // an earlier ssim run stamped up to there
  if (st.st_size < w.read) w = Watched{};       // a new attempt's output
  if (st.st_size == w.read) return;
  const int fd = ::open(out.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return;
  std::string lines;
  char buffer[65536];
  ssize_t n;
  while ((n = ::pread(fd, buffer, sizeof buffer, w.read)) > 0) {
    lines += w.stamper.take(std::string_view(buffer, static_cast<size_t>(n)), now);
    w.read += n;
  }
  ::close(fd);
  // The offset of the last whole line read: a line not ended yet is NAME.out's until it is.
  stamp(run_dir, lines, w.read - static_cast<long long>(w.stamper.pending()));
}

void PrintedMetrics::end(const std::string& name, const std::string& run_dir, double now) {
  look(name, run_dir, now);
  const auto it = watched_.find(name);
  if (it == watched_.end()) return;
  stamp(run_dir, it->second.stamper.finish(now), it->second.read);
  watched_.erase(it);
}

}  // namespace ssim::engine
