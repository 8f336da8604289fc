#include "lib/util/local_file_system.hpp"

#include <linux/magic.h>
#include <sys/statfs.h>

namespace ssim {

bool on_local_file_system(const std::string& path) {
  struct statfs fs {};
  if (statfs(path.c_str(), &fs) != 0) return false;
  constexpr unsigned long kZfs = 0x2FC12FC1;  // not in linux/magic.h
  switch (static_cast<unsigned long>(fs.f_type)) {
    case EXT4_SUPER_MAGIC:  // ext2 and ext3 too
    case XFS_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC:
    case TMPFS_MAGIC:
    case F2FS_SUPER_MAGIC:
    case OVERLAYFS_SUPER_MAGIC:
    case kZfs:
      return true;
    default:  // NFS, Lustre, GPFS, BeeGFS, CephFS, FUSE...: readers on other hosts
      return false;
  }
}

}  // namespace ssim
