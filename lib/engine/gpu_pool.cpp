#include "lib/engine/gpu_pool.hpp"

#include <cstdlib>
#include <sstream>

#include "launchers/command_runner.hpp"
#include "lib/util/layout.hpp"

namespace ssim::engine {

namespace {
std::vector<std::string> split_ids(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  std::string id;
  while (std::getline(in, id, ','))
    if (!id.empty() && id != "none") out.push_back(id);
  return out;
}
}  // namespace

GpuPool GpuPool::detect() {
  if (const char* s = std::getenv("SSIM_GPUS")) return GpuPool(split_ids(s), std::string("SSIM_GPUS=") + s);
  if (const char* c = std::getenv("CUDA_VISIBLE_DEVICES"))
    return GpuPool(split_ids(c), std::string("CUDA_VISIBLE_DEVICES=") + c);
  const std::string smi = find_on_path("nvidia-smi");
  if (smi.empty()) return GpuPool({}, "no CUDA_VISIBLE_DEVICES and no nvidia-smi");
  auto runner = launchers::make_process_runner();
  const auto r = runner->run({smi, "-L"}, std::chrono::seconds(20));
  std::vector<std::string> ids;
  std::stringstream in(r.out);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("GPU ", 0) == 0) ids.push_back(std::to_string(ids.size()));
  return GpuPool(ids, "nvidia-smi -L");
}

std::optional<std::vector<std::string>> GpuPool::take(const std::string& holder, int n) {
  if (n <= 0 || static_cast<size_t>(n) > free_.size()) return std::nullopt;
  std::vector<std::string> ids(free_.begin(), free_.begin() + n);
  free_.erase(free_.begin(), free_.begin() + n);
  held_[holder] = ids;
  return ids;
}

void GpuPool::release(const std::string& holder) {
  auto it = held_.find(holder);
  if (it == held_.end()) return;
  free_.insert(free_.end(), it->second.begin(), it->second.end());
  held_.erase(it);
}

const std::vector<std::string>* GpuPool::held_by(const std::string& holder) const {
  auto it = held_.find(holder);
  return it == held_.end() ? nullptr : &it->second;
}

std::vector<std::string> GpuPool::holders() const {
  std::vector<std::string> out;
  for (const auto& [h, ids] : held_) out.push_back(h);
  return out;
}

}  // namespace ssim::engine
