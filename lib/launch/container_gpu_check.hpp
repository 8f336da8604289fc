#pragma once
// A Charliecloud image that is to run on GPUs but lacks NVIDIA's driver library: ch-run
// shares the host's /dev, yet CUDA inside needs the host driver's user-space libraries,
// which `ch-fromhost --nvidia IMAGE` copies in (Apptainer's --nv, Podman's CDI and
// Docker's --gpus bring them themselves). Without them CUDA sees no device inside and a
// PyTorch trainer quietly trains on the CPU. Said as a warning before anything starts: a
// bind: or an LD_LIBRARY_PATH may bring the library in another way.
#include <string>
#include <vector>

#include "lib/plan/plan.hpp"
#include "lib/spec/spec.hpp"

namespace ssim::launch {

// "FILE:LINE:COL: FIELD.image: warning: ..." for each Charliecloud directory image, once,
// that an entity asking for GPUs (gpus_per_task) runs in and that has no libcuda.so.1.
std::vector<std::string> container_gpu_warnings(const spec::ExperimentSpec& spec, const plan::Plan& plan);

}  // namespace ssim::launch
