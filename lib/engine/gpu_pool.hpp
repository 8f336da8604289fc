#pragma once
// The GPUs the local launcher may hand out, and which entity holds which. The pool is
// what ssim itself may use: $SSIM_GPUS when set (a comma list of device ids, or "none"),
// else $CUDA_VISIBLE_DEVICES of ssim's environment when set, else the devices
// `nvidia-smi -L` lists, else none.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ssim::engine {

class GpuPool {
 public:
  static GpuPool detect();
  explicit GpuPool(std::vector<std::string> ids = {}, std::string source = "none") : free_(ids), size_(ids.size()), source_(std::move(source)) {}

  size_t size() const { return size_; }
  const std::string& source() const { return source_; }  // where the list came from, for messages
  // `n` devices for `holder`, or nullopt while not enough are free.
  std::optional<std::vector<std::string>> take(const std::string& holder, int n);
  void release(const std::string& holder);
  const std::vector<std::string>* held_by(const std::string& holder) const;
  std::vector<std::string> holders() const;

 private:
  std::vector<std::string> free_;
  size_t size_;
  std::string source_;
  std::map<std::string, std::vector<std::string>> held_;
};

}  // namespace ssim::engine
