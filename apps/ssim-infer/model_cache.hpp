#pragma once
// The models and scripts this service has loaded, by key (the model's name), read from
// the database on first use and dropped when a client says they changed (FORGET).
#include <torch/script.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "apps/ssim-infer/batcher.hpp"
#include "apps/ssim-infer/service_stats.hpp"
#include "lib/client/model_record.hpp"
#include "lib/client/router.hpp"

namespace ssim::infer {

struct LoadedModel {
  std::string name;  // as the user gave it, for messages and statistics
  client::ModelKind kind = client::ModelKind::Model;
  torch::Device device{torch::kCPU};
  std::optional<torch::jit::Module> module;
  std::shared_ptr<torch::jit::CompilationUnit> script;
  std::unique_ptr<Batcher> batcher;  // when batch_size > 0

  // Runs the model (or `function` of a script) on the inputs; outputs are on the CPU.
  Tensors run(const Tensors& inputs, const std::string& function = "");
};

class ModelCache {
 public:
  // `local`: "unix:/path" of the shard's own socket, or "" (TCP to `db`).
  ModelCache(const std::string& db, const std::string& local, const std::string& password, ServiceStats& stats);
  // Loads on first use; throws ServiceError (not stored, does not load, no such device).
  std::shared_ptr<LoadedModel> get(const std::string& key);
  void forget(const std::string& key);

 private:
  std::shared_ptr<LoadedModel> load(const std::string& key);

  std::mutex mu_;
  std::map<std::string, std::shared_ptr<LoadedModel>> loaded_;
  client::Router db_;  // only for reading records, under mu_
  ServiceStats& stats_;
};

}  // namespace ssim::infer
