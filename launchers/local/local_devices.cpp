#include "launchers/local/local_devices.hpp"

#include <sched.h>

#include <cstdlib>
#include <sstream>
#include <thread>

#include "launchers/command_runner.hpp"
#include "lib/util/layout.hpp"

namespace ssim::launchers {

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

int local_cpus() {
  if (const char* s = std::getenv("SSIM_CPUS")) {
    const int n = std::atoi(s);
    if (n > 0) return n;
  }
  cpu_set_t set;  // the cores this process may use (taskset, a Slurm step's cgroup)
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace ssim::launchers
