#include "apps/ssim/progress_display.hpp"

#include <chrono>
#include <cstdio>
#include <string>

namespace ssim::app {

using state::Status;

namespace {

std::string counts_line(const std::map<Status, int>& counts) {
  std::string line;
  for (Status s : {Status::New, Status::Pending, Status::Running, Status::Completed, Status::Failed,
                   Status::Cancelled, Status::Unknown}) {
    auto it = counts.find(s);
    if (it == counts.end() || it->second == 0) continue;
    // "new" entities are waiting for their turn (after:, room to run).
    line += (line.empty() ? "" : "  ") + std::to_string(it->second) + " " + (s == Status::New ? "waiting" : to_string(s));
  }
  return line;
}

// Plain lines: every event, and the counts whenever they change.
class PlainProgress : public engine::Progress {
 public:
  void event(const std::string& line) override { std::fprintf(stderr, "ssim: %s\n", line.c_str()); }
  void counts(const std::map<Status, int>&) override {}
  void finish() override {}
};

// One status line redrawn in place; events scroll above it. Redraws at most 10x/s.
class TerminalProgress : public engine::Progress {
 public:
  void event(const std::string& line) override {
    std::fprintf(stderr, "\r\033[K%s\n", line.c_str());
    draw(true);
  }
  void counts(const std::map<Status, int>& counts) override {
    line_ = counts_line(counts);
    draw(false);
  }
  void finish() override { std::fprintf(stderr, "\r\033[K"); }

 private:
  void draw(bool force) {
    const auto now = std::chrono::steady_clock::now();
    if (!force && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    const long t = static_cast<long>(std::chrono::duration<double>(now - started_).count());
    std::fprintf(stderr, "\r\033[K[ssim %02ld:%02ld:%02ld] %s", t / 3600, t % 3600 / 60, t % 60, line_.c_str());
    std::fflush(stderr);
  }
  std::string line_;
  std::chrono::steady_clock::time_point last_{};
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace

std::unique_ptr<engine::Progress> make_progress(bool terminal) {
  if (terminal) return std::make_unique<TerminalProgress>();
  return std::make_unique<PlainProgress>();
}

}  // namespace ssim::app
