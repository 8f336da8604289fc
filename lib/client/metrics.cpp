#include "lib/client/metrics.hpp"

#include "lib/client/metrics_file.hpp"
#include "lib/client/rank_info.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace ssim::metrics {

namespace {

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || !std::isalpha(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-' && c != '/') return false;
  return true;
}

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\')
      out += '\\', out += static_cast<char>(c);
    else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else
      out += static_cast<char>(c);
  }
  return out + "\"";
}

// The buffer and the thread that empties it every second; joined and flushed at exit.
class Writer {
 public:
  Writer() : thread_([this] { run(); }) {}
  ~Writer() {
    {
      std::lock_guard<std::mutex> g(m_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
    flush();
    if (lost_ > 0)  // said once, where the program's errors go
      std::fprintf(stderr,
                   "ssim metrics: %zu points could not be written to %s (a full disk, or a link not followed)\n", lost_,
                   path().c_str());
  }
  void add(std::string line) {
    std::lock_guard<std::mutex> g(m_);
    pending_.push_back(std::move(line));
  }
  void flush() {
    std::vector<std::string> lines;
    {
      std::lock_guard<std::mutex> g(m_);
      lines.swap(pending_);
    }
    if (lines.empty()) return;
    std::string text;
    for (const auto& l : lines) text += l;
    if (!append_locked(path(), text)) {
      std::lock_guard<std::mutex> g(m_);
      lost_ += lines.size();
    }
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(m_);
    while (!stop_) {
      cv_.wait_for(lock, std::chrono::seconds(1), [this] { return stop_; });
      lock.unlock();
      flush();
      lock.lock();
    }
  }
  static std::string path() {
    const char* dir = std::getenv("SSIM_RUN_DIR");
    return std::string(dir && *dir ? dir : ".") + "/metrics." + std::to_string(rank()) + ".ndjson";
  }
  std::mutex m_;
  std::condition_variable cv_;
  size_t lost_ = 0;
  std::vector<std::string> pending_;
  bool stop_ = false;
  std::thread thread_;
};

Writer& writer() {
  static Writer w;
  return w;
}

}  // namespace

int rank() { return rank_info().rank; }  // the one answer: RANK (set by ssim), else the launcher's

void log(const std::string& name, double value, std::optional<long long> step, std::optional<long long> epoch,
         const std::string& phase) {
  if (!valid_name(name))
    throw std::invalid_argument("metric name \"" + name + "\": letters, digits, _ . - /, starting with a letter");
  if (!std::isfinite(value)) return;  // a diverging loss shows as a gap
  const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  char number[64];
  std::snprintf(number, sizeof number, "%.17g", value);
  char when[32];
  std::snprintf(when, sizeof when, "%.3f", now);
  std::string line =
      "{\"name\":\"" + name + "\",\"value\":" + number + ",\"rank\":" + std::to_string(rank()) + ",\"time\":" + when;
  if (step) line += ",\"step\":" + std::to_string(*step);
  if (epoch) line += ",\"epoch\":" + std::to_string(*epoch);
  if (!phase.empty()) line += ",\"phase\":" + json_string(phase);
  writer().add(line + "}\n");
}

void flush() { writer().flush(); }

}  // namespace ssim::metrics
