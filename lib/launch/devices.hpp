#pragma once
// What the local launcher may hand out: this machine's CPUs and GPUs.
#include <string>
#include <vector>

namespace ssim::launch {

struct GpuList {
  std::vector<std::string> ids;
  std::string source;  // where the list came from, for messages
};

// The GPUs ssim may use: $SSIM_GPUS when set (a comma list of device ids, or "none"),
// else $CUDA_VISIBLE_DEVICES of ssim's environment when set, else the devices
// `nvidia-smi -L` lists, else none.
GpuList detect_gpus();

// The CPUs entities may take: $SSIM_CPUS when set, else the cores this process may run on.
int local_cpus();

// SSIM_CPUS and SSIM_GPUS, when set, must say something: throws UsageError (exit 2)
// naming the variable for 0, -1, abc, 1e9, 4abc, 1.5 and the like.
void check_device_variables();

}  // namespace ssim::launch
