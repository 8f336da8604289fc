#include "lib/plan/container.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace ssim::plan {

namespace fs = std::filesystem;

std::string to_string(ContainerRuntime runtime) {
  switch (runtime) {
    case ContainerRuntime::Apptainer:
      return "apptainer";
    case ContainerRuntime::Singularity:
      return "singularity";
    case ContainerRuntime::Charliecloud:
      return "charliecloud";
    case ContainerRuntime::Podman:
      return "podman";
    case ContainerRuntime::Docker:
      return "docker";
  }
  return "apptainer";
}

std::string runtime_program(ContainerRuntime runtime) {
  return runtime == ContainerRuntime::Charliecloud ? "ch-run" : to_string(runtime);
}

std::vector<std::pair<std::string, std::string>> container_env(const Container& c) {
  if (c.runtime != ContainerRuntime::Charliecloud || std::getenv("USER")) return {};
  if (const passwd* pw = ::getpwuid(::geteuid())) return {{"USER", pw->pw_name}};
  return {};
}

const std::vector<ContainerRuntime>& auto_runtime_order() {
  static const std::vector<ContainerRuntime> order = {ContainerRuntime::Apptainer, ContainerRuntime::Singularity,
                                                      ContainerRuntime::Charliecloud, ContainerRuntime::Podman,
                                                      ContainerRuntime::Docker};
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
    for (ContainerRuntime r : auto_runtime_order())
      if (to_string(r) == c.runtime) out.runtime = r;
  }
  out.image_is_path = names_a_path(out.runtime, c.image.value);
  out.image = out.image_is_path ? absolute(c.image.value, base_dir) : c.image.value;
  for (const auto& b : c.bind) out.binds.push_back(bind_of(b.value, base_dir));
  for (const auto& o : c.options) out.options.push_back(o.value);
  return out;
}

}  // namespace ssim::plan
