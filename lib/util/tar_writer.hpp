#pragma once
// A POSIX tar (ustar) archive written as a stream: regular files only, names up to 255
// bytes (split into prefix and name), sizes up to 8 GiB each. For `ssim metrics
// --archive`, which bundles what a run produced for someone else to read.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace ssim {

// The 512-byte header of a regular file; throws std::invalid_argument for a name that
// does not fit.
std::string tar_header(const std::string& name, uint64_t size, long mtime, unsigned mode = 0644);

class TarWriter {
 public:
  explicit TarWriter(std::function<void(std::string_view)> sink) : sink_(std::move(sink)) {}
  void add_text(const std::string& name, std::string_view text, long mtime);
  // The file at `path` under `name`, read in pieces; false (nothing written) when it
  // cannot be opened or is not a regular file.
  bool add_file(const std::string& name, const std::string& path);
  void finish();  // the two empty blocks that end an archive

 private:
  void pad(uint64_t size);
  std::function<void(std::string_view)> sink_;
};

}  // namespace ssim
