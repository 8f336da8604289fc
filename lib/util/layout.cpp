#include "lib/util/layout.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "lib/util/self_exe.hpp"
#include "ssim_python.hpp"

namespace ssim {

namespace fs = std::filesystem;

namespace {
fs::path exe_dir() { return fs::path(self_exe()).parent_path(); }
}  // namespace

std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  return find_on_path(program, path ? path : "/usr/local/bin:/usr/bin:/bin");
}

std::string find_on_path(const std::string& program, const std::string& dirs) {
  if (program.empty()) return "";
  if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0 ? program : "";
  size_t i = 0;
  while (i <= dirs.size()) {
    const size_t j = std::min(dirs.find(':', i), dirs.size());
    const std::string candidate = (j > i ? dirs.substr(i, j - i) : ".") + "/" + program;
    std::error_code ec;
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate, ec)) return candidate;
    i = j + 1;
  }
  return "";
}

std::vector<std::string> supervisor_candidates() {
  std::vector<std::string> out;
  if (const char* s = std::getenv("SSIM_SUPERVISE"); s && *s) return {s};                     // chosen: nothing else
  out.push_back((exe_dir() / "ssim-supervise").string());                                     // build tree
  out.push_back((exe_dir() / "../libexec/ssim/ssim-supervise").lexically_normal().string());  // installed
  return out;
}

std::string find_supervisor() {
  for (const auto& c : supervisor_candidates()) {
    std::error_code ec;
    if (fs::is_regular_file(c, ec) && ::access(c.c_str(), X_OK) == 0) return c;
  }
  return "";
}

std::string door_beside(const std::string& supervisor) {
  return supervisor.substr(0, supervisor.rfind('/') + 1) + "ssim-door";
}

std::string find_inference_service() {
  for (const auto& c : {exe_dir() / "ssim-infer", (exe_dir() / "../libexec/ssim/ssim-infer").lexically_normal()}) {
    std::error_code ec;
    if (fs::is_regular_file(c, ec) && ::access(c.c_str(), X_OK) == 0) return c.string();
  }
  return "";
}

std::string inference_service_fix() {
  std::error_code ec;
  const bool pip = exe_dir().filename() == "bin" && fs::exists(exe_dir() / "../__init__.py", ec);
  return std::string("ssim-infer needs libtorch: apt-get install libtorch-dev, then ") +
         (pip ? "pip install ssim again (its build adds ssim-infer where it finds libtorch)"
              : "build ssim again (CMake builds ssim-infer once it finds libtorch)");
}

std::string python_package_dir() {
  // Installed: <prefix>/lib/python3.X/dist-packages (any python3* folder there).
  std::vector<fs::path> candidates;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(exe_dir() / "../lib", ec))
    if (entry.path().filename().string().rfind("python3", 0) == 0) candidates.push_back(entry.path() / "dist-packages");
  candidates.push_back(exe_dir() / "../../python");  // the build tree
  candidates.push_back(exe_dir() / "../..");         // pip install: <site-packages>/ssim/bin/ssim
  for (const auto& d : candidates)
    if (fs::is_directory(d / "ssim", ec)) return fs::canonical(d, ec).string();
  return "";
}

std::string entity_python() {
  if (const char* p = std::getenv("SSIM_PYTHON"); p && *p) return p;
  const std::string built = kSsimBuiltPython;
  if (!built.empty() && ::access(built.c_str(), X_OK) == 0 && !python_package_dir().empty()) return built;
  return "";
}

}  // namespace ssim
