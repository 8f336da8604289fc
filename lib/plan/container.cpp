#include "lib/plan/container.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace ssim::plan {

namespace fs = std::filesystem;

namespace {
// The one name table: as written in container.runtime, the program, in `auto`'s order.
struct RuntimeName {
  ContainerRuntime runtime;
  const char* name;
  const char* program;
};
constexpr RuntimeName kRuntimes[] = {{ContainerRuntime::Apptainer, "apptainer", "apptainer"},
                                     {ContainerRuntime::Singularity, "singularity", "singularity"},
                                     {ContainerRuntime::Charliecloud, "charliecloud", "ch-run"},
                                     {ContainerRuntime::Podman, "podman", "podman"},
                                     {ContainerRuntime::Docker, "docker", "docker"}};

const RuntimeName& name_of(ContainerRuntime runtime) {
  for (const auto& n : kRuntimes)
    if (n.runtime == runtime) return n;
  return kRuntimes[0];
}
}  // namespace

std::string to_string(ContainerRuntime runtime) { return name_of(runtime).name; }

std::string runtime_program(ContainerRuntime runtime) { return name_of(runtime).program; }

std::vector<std::pair<std::string, std::string>> container_env(const Container& c) {
  if (c.runtime != ContainerRuntime::Charliecloud || std::getenv("USER")) return {};
  static const std::string user = [] {  // asked once: every start of every member needs it
    const passwd* pw = ::getpwuid(::geteuid());
    return pw ? std::string(pw->pw_name) : std::string();
  }();
  if (user.empty()) return {};
  return {{"USER", user}};
}

const std::vector<ContainerRuntime>& auto_runtime_order() {
  static const std::vector<ContainerRuntime> order = [] {
    std::vector<ContainerRuntime> out;
    for (const auto& n : kRuntimes) out.push_back(n.runtime);
    return out;
  }();
  return order;
}

namespace {

std::string absolute(const std::string& p, const std::string& base_dir) {
  return (fs::path(base_dir) / p).lexically_normal().string();
}

// Whether the image is a file or folder (else a name or URI the runtime resolves).
bool names_a_path(ContainerRuntime runtime, const std::string& image) {
  const bool explicit_path = image[0] == '/' || image.rfind("./", 0) == 0 || image.rfind("../", 0) == 0;
  switch (runtime) {
    case ContainerRuntime::Podman:
    case ContainerRuntime::Docker:
      return false;  // registry names hold '/' too
    case ContainerRuntime::Apptainer:
    case ContainerRuntime::Singularity:
      return image.find("://") == std::string::npos;  // docker://, oras://
    case ContainerRuntime::Charliecloud:
      return explicit_path || image.find('/') != std::string::npos;
  }
  return explicit_path;
}

Bind bind_of(const std::string& text, const std::string& base_dir) {
  Bind b;
  const size_t first = text.find(':');
  b.source = absolute(text.substr(0, first), base_dir);
  b.target = b.source;
  if (first == std::string::npos) return b;
  const size_t second = text.find(':', first + 1);
  b.target = text.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
  b.read_only = second != std::string::npos && text.substr(second + 1) == "ro";
  return b;
}

}  // namespace

Container resolve_container(const spec::Container& c, const std::string& base_dir,
                            const std::vector<ContainerRuntime>& installed) {
  Container out;
  out.field = c.field;
  out.loc = c.loc;
  out.image_loc = c.image.loc;
  if (c.runtime == "auto") {
    const auto& order = auto_runtime_order();
    const auto found = std::find_if(order.begin(), order.end(), [&](ContainerRuntime r) {
      return std::find(installed.begin(), installed.end(), r) != installed.end();
    });
    out.runtime_missing = found == order.end();
    if (!out.runtime_missing) out.runtime = *found;
  } else {
    for (const auto& n : kRuntimes)
      if (c.runtime == n.name) out.runtime = n.runtime;
  }
  out.image_is_path = names_a_path(out.runtime, c.image.value);
  out.image = out.image_is_path ? absolute(c.image.value, base_dir) : c.image.value;
  std::error_code ec;
  out.image_environment = out.runtime == ContainerRuntime::Charliecloud && out.image_is_path &&
                          fs::exists(fs::path(out.image) / "ch/environment", ec);
  for (const auto& b : c.bind) out.binds.push_back(bind_of(b.value, base_dir));
  for (const auto& o : c.options) out.options.push_back(o.value);
  return out;
}

std::vector<Bind> host_binds_of(const spec::Entity& e, const std::string& base_dir) {
  std::vector<Bind> out;
  auto add = [&](const std::string& folder, bool read_only) {
    for (const auto& b : out)
      if (b.source == folder) return;
    out.push_back({folder, folder, read_only});
  };
  // An exe written with a '/' and relative is the experiment file's folder's: a host file
  // (an absolute one is the image's). Up to a $(parameter), its fixed folder.
  const std::string& exe = e.exe.value;
  if (exe.find('/') != std::string::npos && exe[0] != '/') {
    const std::string fixed = exe.substr(0, exe.find("$("));
    const size_t slash = fixed.rfind('/');
    if (slash != std::string::npos) add(absolute(fixed.substr(0, slash), base_dir), true);
  }
  std::error_code ec;
  for (const auto& t : e.files.symlink) {
    const std::string source = absolute(t.value, base_dir);
    add(fs::is_directory(source, ec) ? source : fs::path(source).parent_path().string(), false);
  }
  return out;
}

}  // namespace ssim::plan
