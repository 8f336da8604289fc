#include "lib/launch/devices.hpp"

#include <sched.h>

#include <cstdlib>
#include <sstream>
#include <thread>

#include "lib/launch/command_runner.hpp"
#include "lib/util/errors.hpp"
#include "lib/util/layout.hpp"

namespace ssim::launch {

namespace {
std::vector<std::string> split_ids(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  std::string id;
  while (std::getline(in, id, ','))
    if (!id.empty() && id != "none") out.push_back(id);
  return out;
}

GpuList find_gpus() {
  if (const char* s = std::getenv("SSIM_GPUS")) return {split_ids(s), std::string("SSIM_GPUS=") + s};
  if (const char* c = std::getenv("CUDA_VISIBLE_DEVICES"))
    return {split_ids(c), std::string("CUDA_VISIBLE_DEVICES=") + c};
  const std::string smi = find_on_path("nvidia-smi");
  if (smi.empty()) return {{}, "no CUDA_VISIBLE_DEVICES and no nvidia-smi"};
  auto runner = make_process_runner();
  const auto r = runner->run({smi, "-L"}, std::chrono::seconds(20));
  std::vector<std::string> ids;
  std::stringstream in(r.out);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("GPU ", 0) == 0) ids.push_back(std::to_string(ids.size()));
  return {ids, "nvidia-smi -L"};
}
}  // namespace

// Once per process: the start-up check and the local pool both ask (nvidia-smi is slow).
GpuList detect_gpus() {
  static const GpuList found = find_gpus();
  return found;
}

void check_device_variables() {
  if (const char* s = std::getenv("SSIM_CPUS"); s && *s) {  // empty: as if unset
    const std::string v = s;
    const bool digits = !v.empty() && v.size() <= 6 && v.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::atoi(s) < 1 || std::atoi(s) > 100000)
      throw UsageError("SSIM_CPUS=" + v + ": expected a whole number of CPUs from 1 to 100000 (or unset it)");
  }
  if (const char* s = std::getenv("SSIM_GPUS")) {
    for (const auto& id : split_ids(s)) {
      const bool index = id.find_first_not_of("0123456789") == std::string::npos && id.size() <= 4;
      const bool uuid = (id.rfind("GPU-", 0) == 0 || id.rfind("MIG-", 0) == 0) && id.size() > 4 &&
                        id.find_first_not_of("0123456789abcdefABCDEF-/GPUMI") == std::string::npos;
      if (!index && !uuid)
        throw UsageError(std::string("SSIM_GPUS=") + s + ": \"" + id +
                         "\" is not a device: expected indexes (0,1), GPU-/MIG- UUIDs, or none");
    }
  }
}

int local_cpus() {
  if (const char* s = std::getenv("SSIM_CPUS")) {
    const int n = std::atoi(s);
    if (n > 0) return n;
  }
  cpu_set_t set;  // the cores this process may use (taskset, a Slurm step's cgroup)
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace ssim::launch
