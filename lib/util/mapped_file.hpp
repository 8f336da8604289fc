#pragma once
// A file read in place: its pages are the page cache's, not a copy, mapped as they are
// read and let go once read (release). Reading a manifest of
// a million members (300+ MB) into a string spent a quarter of `ssim status` on zeroing
// fresh memory and copying into it. Only for files replaced whole (written beside and
// renamed over): a file cut shorter while mapped would fault its reader.
#include <optional>
#include <string>
#include <string_view>

namespace ssim {

class MappedFile {
 public:
  // nullopt when the file cannot be opened or mapped.
  static std::optional<MappedFile> open(const std::string& path);
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&&) = delete;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();
  std::string_view text() const { return {data_, size_}; }
  // The whole pages in [from, to) are not read again: their memory goes back (the page
  // cache keeps them; a read of them after this reads the file again).
  void release(const char* from, const char* to) const;

 private:
  MappedFile(const char* data, size_t size) : data_(data), size_(size) {}
  const char* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace ssim
