#pragma once
#include <filesystem>
#include <string>

namespace ssim {

// The absolute path of the running program (ssim re-invokes itself for hidden steps).
inline std::string self_exe() {
  std::error_code ec;
  return std::filesystem::read_symlink("/proc/self/exe", ec).string();
}

}  // namespace ssim
