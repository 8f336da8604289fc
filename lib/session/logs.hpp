#pragma once
// What `ssim logs` does (the CLI, the dashboard and the Python API print it): find an
// entity's output file, read it whole, or follow it until the entity ends.
#include <functional>
#include <string>
#include <string_view>

namespace ssim::session {

struct EntityOutput {
  std::string entity;
  std::string stream;  // "out" or "err"
  std::string file;    // <run_dir>/<entity>.out or .err
  bool ended = false;  // the entity had ended when the manifest was read
};

// Throws UsageError when the experiment has no entity `name`.
EntityOutput entity_output(const std::string& path, const std::string& name, bool stderr_stream);

// The whole file; UsageError when the entity has written nothing yet.
std::string read_output(const EntityOutput& output);
// The same, handed to `sink` piece by piece (output of any size).
void copy_output(const EntityOutput& output, const std::function<void(std::string_view)>& sink);

// Up to `max` bytes from `offset` (the dashboard's paging); an offset past the end (a
// new attempt rewrote the file) starts again at 0. `next`: where the next chunk starts.
struct OutputChunk {
  std::string data;
  long offset = 0;
  long next = 0;
};
OutputChunk read_output_chunk(const EntityOutput& output, long offset, size_t max);

// Hands what the file holds to `sink`, then (tail -f) what it gains until the entity has
// ended, and the rest. A file that does not exist yet is waited for.
void follow_output(const std::string& path, const EntityOutput& output,
                   const std::function<void(std::string_view)>& sink);

}  // namespace ssim::session
