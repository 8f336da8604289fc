#pragma once
// How a model or script is stored in the database: one hash per name, the one owner of
// that format (the client writes it, the inference service reads it). Documented in
// WIRE_FORMAT.md ("Models and scripts").
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ssim::client {

enum class ModelKind { Model, Script };

struct ModelRecord {
  ModelKind kind = ModelKind::Model;
  std::string blob;            // TorchScript bytes (torch.jit.save), or a script's source text
  std::string device = "CPU";  // CPU, GPU, GPU:n
  int batch_size = 0;          // 0: no batching
  int min_batch_size = 0;
  int min_batch_timeout_ms = 0;
  std::string tag;
  std::vector<std::string> inputs, outputs;  // names, informational (SmartRedis's TF args)
  std::string version;                       // changes at every set; the service reloads when it differs
};

// The key of the hash that holds the record (the name, as RedisAI); model_name() is its inverse.
std::string model_key(const std::string& name);
std::string model_name(const std::string& key);
// Field-value pairs for HSET (the blob by reference: `record` must outlive the result).
std::vector<std::string_view> model_fields(const ModelRecord& record, std::vector<std::string>& storage);
// From HGETALL's pairs; throws ClientError naming `key` when the record is not one.
ModelRecord model_from_fields(const std::string& key, const std::map<std::string, std::string>& fields);

// "CPU", "GPU", "GPU:3" -> normalised; throws ClientError on anything else.
std::string normalise_device(const std::string& device);

// The key under which the inference service beside a shard registers its address: the
// first of "{ssim.inference.N}" whose hash slot the shard owns (`owned`), so each shard
// of a cluster holds its own service's address and both sides compute the same key.
std::string inference_registry_key(const std::function<bool(uint16_t)>& owned);

}  // namespace ssim::client
