#include "lib/session/logs.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "lib/session/current_state.hpp"
#include "lib/session/entity_names.hpp"
#include "lib/state/manifest.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/errors.hpp"

namespace ssim::session {

EntityOutput entity_output(const std::string& path, const std::string& name, bool stderr_stream) {
  const auto m = state::load_manifest(path);
  const state::EntityRecord& e = one_entity(m, name);
  const std::string stream = stderr_stream ? "err" : "out";
  return {name, stream, e.run_dir + "/" + name + "." + stream, state::is_terminal(e.status)};
}

std::string read_output(const EntityOutput& output) {
  auto text = read_file(output.file);
  if (!text) throw UsageError(output.entity + " has no output yet (" + output.file + ")");
  return std::move(*text);
}

namespace {
// What `fd` has beyond its offset, to `sink`; whether anything came.
bool drain(int fd, const std::function<void(std::string_view)>& sink) {
  char buf[65536];
  bool any = false;
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0; any = true) sink(std::string_view(buf, n));
  return any;
}
}  // namespace

OutputChunk read_output_chunk(const EntityOutput& output, long offset, size_t max) {
  OutputChunk chunk{"", offset, offset};
  const int fd = ::open(output.file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return chunk;
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (offset < 0 || offset > size) chunk.offset = 0;
  chunk.data.resize(std::min<size_t>(max, static_cast<size_t>(size - chunk.offset)));
  const ssize_t n = chunk.data.empty() ? 0 : ::pread(fd, chunk.data.data(), chunk.data.size(), chunk.offset);
  chunk.data.resize(n > 0 ? static_cast<size_t>(n) : 0);
  ::close(fd);
  chunk.next = chunk.offset + static_cast<long>(chunk.data.size());
  return chunk;
}

void copy_output(const EntityOutput& output, const std::function<void(std::string_view)>& sink) {
  const int fd = ::open(output.file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw UsageError(output.entity + " has no output yet (" + output.file + ")");
  drain(fd, sink);
  ::close(fd);
}

void follow_output(const std::string& path, const EntityOutput& output,
                   const std::function<void(std::string_view)>& sink) {
  int fd = -1;
  while (true) {
    if (fd < 0) fd = ::open(output.file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && drain(fd, sink)) continue;
    const auto s = current_state(path);
    const auto* now = s.manifest.find(output.entity);
    if (!now || state::is_terminal(now->status)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // tail -f's pace
  }
  if (fd >= 0) {
    drain(fd, sink);  // what it wrote as it ended
    ::close(fd);
  }
}

}  // namespace ssim::session
