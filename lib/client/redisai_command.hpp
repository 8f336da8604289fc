#pragma once
// RedisAI's commands as SmartRedis sends them, read into plain values, and RedisAI's
// reply shapes written back: the pure half of the SmartRedis door (apps/ssim-door). The
// words of every error are RedisAI 1.2's own, so a SmartRedis program sees what it
// would see against Redis with RedisAI. No I/O here.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "lib/client/dtype.hpp"
#include "lib/client/tensor.hpp"

namespace ssim::client::redisai {

// A request RedisAI would refuse; what() is its error line ("ERR ...").
struct CommandError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// FLOAT, DOUBLE, INT8, INT16, INT32, INT64, UINT8, UINT16, BOOL (any case, as RedisAI).
std::optional<DType> redisai_type(std::string_view name);
// RedisAI's name, or "" for a type RedisAI does not have (f16, bf16, u32, u64).
std::string redisai_type_name(DType dtype);

struct TensorSet {
  std::string key;
  DType dtype = DType::F32;
  std::vector<uint64_t> dims;
  std::string_view blob;  // BLOB: into argv; VALUES: into `values`
  std::string values;     // VALUES, packed little-endian
  std::string_view data() const { return blob.data() ? blob : std::string_view(values); }
};
TensorSet parse_tensorset(const std::vector<std::string>& argv);

struct TensorGet {
  std::string key;
  bool meta = false, blob = false, values = false;
};
TensorGet parse_tensorget(const std::vector<std::string>& argv);
// A reply in three pieces, so that a tensor's bytes are written from where they lie.
struct ReplyPieces {
  std::string head;
  std::string_view payload;  // into the tensor
  std::string tail;
  std::string joined() const { return head + std::string(payload) + tail; }
};
// The reply to AI.TENSORGET in the asked form (RESP2, as RedisAI writes it).
ReplyPieces tensorget_reply(const TensorGet& form, const Tensor& tensor);

struct ModelStore {
  std::string key, backend, device, tag;
  int batch_size = 0, min_batch_size = 0, min_batch_timeout = 0;
  std::vector<std::string> inputs, outputs;
  std::string blob;  // every BLOB argument, joined (SmartRedis sends large models in chunks)
};
ModelStore parse_modelstore(const std::vector<std::string>& argv);

struct ScriptStore {
  std::string key, device, tag, source;
  std::vector<std::string> entry_points;  // AI.SCRIPTSTORE only
};
ScriptStore parse_scriptset(const std::vector<std::string>& argv);    // AI.SCRIPTSET
ScriptStore parse_scriptstore(const std::vector<std::string>& argv);  // AI.SCRIPTSTORE

struct Execute {
  std::string key, function;  // function: scripts only
  std::vector<std::string> inputs, outputs;
};
Execute parse_modelexecute(const std::vector<std::string>& argv);   // AI.MODELEXECUTE
Execute parse_modelrun(const std::vector<std::string>& argv);       // AI.MODELRUN (deprecated form)
Execute parse_scriptexecute(const std::vector<std::string>& argv);  // AI.SCRIPTEXECUTE
Execute parse_scriptrun(const std::vector<std::string>& argv);      // AI.SCRIPTRUN (deprecated form)

// RedisAI's default MODEL_CHUNK_SIZE (what AI.CONFIG GET answers on a fresh server).
inline constexpr int64_t kModelChunkSize = 535822336;

}  // namespace ssim::client::redisai
