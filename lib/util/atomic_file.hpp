#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace ssim {

// Writes `text` to `path` through a temporary file in the same directory and a rename,
// so a reader sees either the old or the new content, never a torn one.
void write_file_atomically(const std::string& path, const std::string& text, unsigned mode = 0644);

// The same, a piece at a time, for a text too large to hold whole: nothing is at `path`
// until commit(); a writer dropped before it removes its temporary file. Throws
// EnvironmentError (a full file system named as such).
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::string path, unsigned mode = 0644);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  void write(std::string_view text);  // buffered
  void commit();

 private:
  void flush();
  std::string path_, tmp_;
  int fd_ = -1;
  std::string buffer_;
};

// Writes `text` to `path` in place (created or truncated, then written): for a file no
// one reads until the caller says it is complete, where the temporary and the rename of
// write_file_atomically would be wasted. Throws EnvironmentError as it does.
void write_file_directly(const std::string& path, const std::string& text, unsigned mode = 0644);

// The whole file, or nullopt when it does not exist or cannot be read.
std::optional<std::string> read_file(const std::string& path);
// What is left to read of `fd`, read in place at the size the file has now (it may grow
// while read); `fd` stays open.
std::string read_whole(int fd);

}  // namespace ssim
