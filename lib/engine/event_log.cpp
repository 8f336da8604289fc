#include "lib/engine/event_log.hpp"
#include "lib/util/experiment_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ssim::engine {

namespace {
constexpr off_t kMaxBytes = 64L << 20;
}

std::string events_path(const std::string& experiment_path) { return ssim_dir(experiment_path) + "/events.ndjson"; }

void append_event(const std::string& experiment_path, const Event& e) {
  const std::string path = events_path(experiment_path);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_size < kMaxBytes) {
    const std::string line = to_json(e).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (::write(fd, line.data(), line.size()) < 0) {
      // a full disk: the run goes on without its log
    }
  }
  ::close(fd);
}

}  // namespace ssim::engine
