#pragma once
#include <string>

namespace ssim {

// Whether `path` is on a file system that this host's kernel alone serves (ext4, xfs,
// btrfs, tmpfs...): every reader of it then shares this host's page cache. Elsewhere (NFS,
// Lustre, GPFS...) a reader on another host sees a write once it is flushed, and a
// change to a file it holds open only once it opens it again.
bool on_local_file_system(const std::string& path);

}  // namespace ssim
