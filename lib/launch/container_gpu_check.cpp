#include "lib/launch/container_gpu_check.hpp"

#include <set>

#include "lib/launch/container_checks.hpp"
#include "lib/spec/error.hpp"

namespace ssim::launch {

namespace {

// The places an image keeps libcuda.so.1: ch-fromhost puts it in the image's first library
// folder; NGC images keep a copy in /usr/local/cuda/compat.
bool has_driver_library(const std::string& image) {
  for (const char* dir :
       {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib/powerpc64le-linux-gnu", "/usr/lib64",
        "/usr/lib", "/lib/x86_64-linux-gnu", "/lib64", "/lib", "/usr/local/lib", "/usr/local/lib64",
        "/usr/local/cuda/compat", "/usr/local/cuda/lib64", "/usr/local/nvidia/lib64"})
    if (exists_in(image, std::string(dir) + "/libcuda.so.1")) return true;  // a link counts: ch-fromhost may make one
  return false;
}

}  // namespace

std::vector<std::string> container_gpu_warnings(const spec::ExperimentSpec& spec, const plan::Plan& plan) {
  std::vector<std::string> out;
  std::set<const plan::Container*> seen;
  for (const auto& s : plan.steps) {
    const plan::Container* c = s.program->container.get();
    if (!c || c->runtime != plan::ContainerRuntime::Charliecloud || s.program->res.gpus_per_task <= 0) continue;
    if (!seen.insert(c).second || !is_directory_image(*c)) continue;
    if (has_driver_library(c->image)) continue;
    out.push_back(spec.file + ":" + std::to_string(c->image_loc.line) + ":" + std::to_string(c->image_loc.col) + ": " +
                  c->field + ".image: warning: the image " + spec::printable(c->image) +
                  " has no libcuda.so.1 (the NVIDIA driver's library), so CUDA inside will see none of the GPUs "
                  "ssim gives " +
                  (s.ensemble.empty() ? s.name : s.ensemble) + ": run `ch-fromhost --nvidia " +
                  spec::printable(c->image) + "` on a GPU node first (docs/containers.md)");
  }
  return out;
}

}  // namespace ssim::launch
