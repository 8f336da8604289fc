#include "apps/ssim/progress_display.hpp"

#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace ssim::app {

using state::Status;

namespace {

std::string counts_line(const std::map<Status, int>& counts) {
  std::string line;
  for (Status s : {Status::New, Status::Pending, Status::Running, Status::Completed, Status::Failed, Status::Cancelled,
                   Status::Unknown}) {
    auto it = counts.find(s);
    if (it == counts.end() || it->second == 0) continue;
    // "new" entities are waiting for their turn (after:, room to run).
    line +=
        (line.empty() ? "" : "  ") + std::to_string(it->second) + " " + (s == Status::New ? "waiting" : to_string(s));
  }
  return line;
}

// Plain lines: every event, and the counts whenever they change.
class PlainProgress : public engine::Progress {
 public:
  void event(const engine::Event& e) override { std::fprintf(stderr, "ssim: %s\n", to_text(e).c_str()); }

  void counts(const engine::Tally&) override {}
  void finish() override {}
};

// "sim [######----] 12/20"
std::string bar(const engine::Tally::Ensemble& e) {
  constexpr int kWidth = 10;
  const int full = e.total ? e.ended * kWidth / e.total : 0;
  return e.name + " [" + std::string(full, '#') + std::string(kWidth - full, '-') + "] " + std::to_string(e.ended) +
         "/" + std::to_string(e.total);
}

// The terminal's width, so the live line never wraps (a wrapped line cannot be redrawn).
size_t columns() {
  winsize w{};
  return ::ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 20 ? w.ws_col : 80;
}

// Red for failures and errors, yellow for warnings; nothing when NO_COLOR is set.
const char* colour_of(const engine::Event& e) {
  static const bool plain = std::getenv("NO_COLOR") && *std::getenv("NO_COLOR");
  if (plain) return "";
  if (e.kind == engine::EventKind::Error || (e.kind == engine::EventKind::Entity && e.status == Status::Failed))
    return "\033[31m";
  if (e.kind == engine::EventKind::Warning) return "\033[33m";
  return "";
}

// One status line redrawn in place; events scroll above it. Redraws at most 10x/s.
class TerminalProgress : public engine::Progress {
 public:
  void event(const engine::Event& e) override {
    const char* colour = colour_of(e);
    std::fprintf(stderr, "\r\033[K%s%s%s\n", colour, to_text(e).c_str(), *colour ? "\033[0m" : "");
    if (e.kind != engine::EventKind::Finished) draw(true);  // the last line stays the last
  }
  void counts(const engine::Tally& t) override {
    line_ = counts_line(t.counts);
    for (const auto& e : t.ensembles) line_ += "  " + bar(e);
    draw(false);
  }
  void finish() override { std::fprintf(stderr, "\r\033[K"); }

 private:
  void draw(bool force) {
    const auto now = std::chrono::steady_clock::now();
    if (!force && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    const long t = static_cast<long>(std::chrono::duration<double>(now - started_).count());
    char clock[48];
    std::snprintf(clock, sizeof clock, "[ssim %02ld:%02ld:%02ld] ", t / 3600, t % 3600 / 60, t % 60);
    std::string line = clock + line_;
    if (line.size() >= columns()) line = line.substr(0, columns() - 4) + "...";
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
  }
  std::string line_;
  std::chrono::steady_clock::time_point last_{};
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

// NDJSON on stdout (ssim run --events), then whatever shows it to a person.
class EventLines : public engine::Progress {
 public:
  explicit EventLines(std::unique_ptr<engine::Progress> person) : person_(std::move(person)) {}
  void event(const engine::Event& e) override {
    if (open_) {
      const std::string line = to_json(e).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
      // A reader that went away (| head) must not end the run with SIGPIPE: ignored
      // around this write only, since what ssim starts inherits ignored signals.
      struct sigaction ignore {
      }, before{};
      ignore.sa_handler = SIG_IGN;
      ::sigaction(SIGPIPE, &ignore, &before);
      open_ = write_all(line);
      ::sigaction(SIGPIPE, &before, nullptr);
    }
    person_->event(e);
  }
  void counts(const engine::Tally& t) override { person_->counts(t); }
  void finish() override { person_->finish(); }

 private:
  static bool write_all(const std::string& s) {
    size_t done = 0;
    while (done < s.size()) {
      const ssize_t n = ::write(STDOUT_FILENO, s.data() + done, s.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }
  std::unique_ptr<engine::Progress> person_;
  bool open_ = true;
};

}  // namespace

std::unique_ptr<engine::Progress> make_progress(bool terminal, bool events) {
  std::unique_ptr<engine::Progress> person;
  if (terminal)
    person = std::make_unique<TerminalProgress>();
  else
    person = std::make_unique<PlainProgress>();
  if (events) return std::make_unique<EventLines>(std::move(person));
  return person;
}

}  // namespace ssim::app
