#include "lib/engine/event_log.hpp"
#include "lib/util/experiment_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ssim::engine {

std::string events_path(const std::string& experiment_path) { return ssim_dir(experiment_path) + "/events.ndjson"; }

namespace {
constexpr off_t kMaxBytes = 64L << 20;

std::string event_line(const Event& e) {
  return to_json(e).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}
}  // namespace

void append_event(const std::string& experiment_path, const Event& e) { EventLog(experiment_path).append(e); }

EventLog::~EventLog() {
  if (fd_ >= 0) ::close(fd_);
}

void EventLog::append(const Event& e) {
  if (!opened_) {
    opened_ = true;
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    struct stat st {};
    if (fd_ >= 0 && ::fstat(fd_, &st) == 0) size_ = st.st_size;
  }
  if (fd_ < 0 || size_ >= kMaxBytes) return;
  const std::string line = event_line(e);
  if (::write(fd_, line.data(), line.size()) > 0) size_ += static_cast<long long>(line.size());
  // else a full disk: the run goes on without its log
}

}  // namespace ssim::engine
