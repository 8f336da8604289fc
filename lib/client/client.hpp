#pragma once
// ssim::Client: tensors, datasets and aggregation lists in the experiment's database.
//
//   ssim::client::Client c;                 // SSDB / SSDB_PASSWORD from the environment
//   c.put_tensor("field", data, {64, 64}, DType::F64);
//   auto t = c.get_tensor("field");
//
// Works the same on one server and on a Redis cluster (slots, MOVED, ASK). Keys are
// prefixed per SmartSim's rules from SSKEYOUT / SSKEYIN. The stored format is in
// WIRE_FORMAT.md beside this file.
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/client/dataset.hpp"
#include "lib/client/errors.hpp"
#include "lib/client/tensor.hpp"

namespace ssim::client {

class Router;
class Connection;
struct TensorHeader;
struct ModelRecord;

// A tensor in the caller's memory, for the pipelined put_tensors.
struct TensorRef {
  std::string name;
  const void* data;
  std::vector<uint64_t> dims;
  DType dtype;
};

class Client {
 public:
  // From SSDB and SSDB_PASSWORD. Throws ConnectionError / AuthError.
  Client();
  // "host:port[,host:port...]" and a password ("" for none).
  Client(const std::string& address, const std::string& password);
  ~Client();
  Client(Client&&) noexcept;

  bool is_cluster() const;

  // Tensors. `name` is prefixed as described in WIRE_FORMAT.md.
  void put_tensor(const std::string& name, const void* data, const std::vector<uint64_t>& dims, DType dtype);
  Tensor get_tensor(const std::string& name);
  // Into the caller's buffer, which must match the stored dtype and dims exactly.
  void unpack_tensor(const std::string& name, void* data, const std::vector<uint64_t>& dims, DType dtype);
  // Into memory chosen once the stored header is known: `allocate(dtype, dims)` returns
  // where to write the payload (the Python module uses it to read into a new array).
  void get_tensor_into(const std::string& name,
                       const std::function<void*(DType, const std::vector<uint64_t>&)>& allocate);
  // Many tensors in one pipeline per shard (small tensors at the server's op rate).
  void put_tensors(const std::vector<TensorRef>& tensors);
  std::vector<Tensor> get_tensors(const std::vector<std::string>& names);
  bool tensor_exists(const std::string& name);
  bool poll_tensor(const std::string& name, int interval_ms, int tries);
  void delete_tensor(const std::string& name);
  void copy_tensor(const std::string& source, const std::string& destination);
  void rename_tensor(const std::string& source, const std::string& destination);

  // Datasets.
  void put_dataset(const Dataset& dataset);
  Dataset get_dataset(const std::string& name);
  bool dataset_exists(const std::string& name);
  bool poll_dataset(const std::string& name, int interval_ms, int tries);
  void delete_dataset(const std::string& name);

  // Aggregation lists of datasets.
  void append_to_list(const std::string& list, const Dataset& dataset);
  uint64_t get_list_length(const std::string& list);
  // Items start..end inclusive; negative indices count from the end, as in LRANGE.
  std::vector<Dataset> get_datasets_from_list(const std::string& list, int64_t start = 0, int64_t end = -1);
  // Until the list holds at least min_length (SmartRedis's poll_list_length waits for
  // exactly that length; lists only grow, so this returns when it would, and also when
  // the list is already longer).
  bool poll_list_length(const std::string& list, uint64_t min_length, int interval_ms, int tries);
  void delete_list(const std::string& list);
  void copy_list(const std::string& source, const std::string& destination);
  void rename_list(const std::string& source, const std::string& destination);

  // SmartRedis's names for the same things (the porting table is in
  // docs/coming-from-smartsim.md). key_exists and poll_key take the raw key: no prefix.
  bool key_exists(const std::string& key);
  bool poll_key(const std::string& key, int interval_ms, int tries);
  void copy_dataset(const std::string& source, const std::string& destination);
  void rename_dataset(const std::string& source, const std::string& destination);
  std::vector<Dataset> get_dataset_list_range(const std::string& list, int64_t start, int64_t end) {
    return get_datasets_from_list(list, start, end);
  }
  bool poll_list_length_gte(const std::string& list, uint64_t length, int interval_ms, int tries) {
    return poll_list_length(list, length, interval_ms, tries);
  }
  bool poll_list_length_lte(const std::string& list, uint64_t length, int interval_ms, int tries);
  void use_tensor_ensemble_prefix(bool on) { use_tensor_prefix(on); }
  void use_dataset_ensemble_prefix(bool on) { use_dataset_prefix(on); }
  void use_list_ensemble_prefix(bool on) { use_list_prefix(on); }

  // Models and scripts (docs/inference.md). Stored in the database (any client can read
  // them back); run by the inference service beside the shard that holds the first input
  // (`orchestrator: {inference: true}`). Inputs and outputs are tensor names, prefixed as
  // get_tensor / put_tensor do. Failures throw InferenceError with the service's reason.
  // `backend` is TORCH (TorchScript, torch.jit.save); `device` CPU, GPU or GPU:n.
  void set_model(const std::string& name, const std::string& model, const std::string& backend = "TORCH",
                 const std::string& device = "CPU", int batch_size = 0, int min_batch_size = 0,
                 int min_batch_timeout = 0, const std::string& tag = "", const std::vector<std::string>& inputs = {},
                 const std::vector<std::string>& outputs = {});
  void set_model_from_file(const std::string& name, const std::string& path, const std::string& backend = "TORCH",
                           const std::string& device = "CPU", int batch_size = 0, int min_batch_size = 0,
                           int min_batch_timeout = 0, const std::string& tag = "",
                           const std::vector<std::string>& inputs = {}, const std::vector<std::string>& outputs = {});
  // TorchScript source (functions); run_script calls one of them by name.
  void set_script(const std::string& name, const std::string& device, const std::string& script);
  void set_script_from_file(const std::string& name, const std::string& device, const std::string& path);
  void run_model(const std::string& name, const std::vector<std::string>& inputs,
                 const std::vector<std::string>& outputs);
  void run_script(const std::string& name, const std::string& function, const std::vector<std::string>& inputs,
                  const std::vector<std::string>& outputs);
  std::string get_model(const std::string& name);
  std::string get_script(const std::string& name);
  bool model_exists(const std::string& name);
  bool poll_model(const std::string& name, int interval_ms, int tries);
  void delete_model(const std::string& name);
  void delete_script(const std::string& name);
  // Model names are not prefixed unless this is on (SmartRedis's default).
  void use_model_ensemble_prefix(bool on) { model_prefix_ = on; }

  // Servers. An address is "host:port" (or "unix:/path") as in SSDB; db_addresses()
  // lists them (every shard of a cluster). An empty list means every shard.
  std::vector<std::string> db_addresses();
  // INFO of one server, field -> value ("used_memory" -> "1048576").
  std::map<std::string, std::string> get_db_node_info(const std::string& address);
  // CONFIG GET / CONFIG SET on one server.
  std::map<std::string, std::string> config_get(const std::string& expression, const std::string& address);
  void config_set(const std::string& parameter, const std::string& value, const std::string& address);
  // SAVE (a snapshot on disk, blocking) and FLUSHDB (removes every key!).
  void save(const std::vector<std::string>& addresses = {});
  void flush_db(const std::vector<std::string>& addresses = {});

  // Key prefixing (SmartSim semantics).
  // Any command, sent to the shard that holds `key` (MOVED and ASK followed), its reply
  // returned as RESP bytes exactly as the server wrote it, error replies included. The
  // SmartRedis door passes plain Redis commands on with these.
  std::string forward(std::string_view key, const std::vector<std::string_view>& argv);
  // The same for a command without a key: to the first shard.
  std::string forward_to_first(const std::vector<std::string_view>& argv);
  // How many chunk keys the ssim tensor at `key` has (0: inline), or nullopt when the key
  // holds no ssim tensor (missing, another type, other bytes).
  std::optional<uint32_t> stored_chunks(const std::string& key);
  // True when both keys live on one shard (always, on a single server).
  bool same_shard(std::string_view a, std::string_view b);
  void set_data_source(const std::string& source);  // one of SSKEYIN, or SSKEYOUT
  const std::string& data_source() const { return source_; }
  void use_tensor_prefix(bool on) { tensor_prefix_ = on; }
  void use_dataset_prefix(bool on) { dataset_prefix_ = on; }
  void use_list_prefix(bool on) { list_prefix_ = on; }

  // Tensors above this size are split into chunks (WIRE_FORMAT.md). Default 1 MiB.
  void set_chunk_bytes(uint32_t bytes) { chunk_bytes_ = bytes; }
  // Connections to the server at `address` ("host:port" as SSDB or the cluster name it)
  // go to `instead` ("unix:/path": that server's Unix socket, from a program on its node).
  void connect_via(const std::string& address, const std::string& instead);
  // Testing: make the next requests meet MOVED on a cluster.
  void scramble_slot_map_for_tests();

 private:
  std::string put_key(const std::string& name, bool on) const;
  std::string get_key(const std::string& name, bool on) const;
  void put_tensor_key(const std::string& key, const void* data, const std::vector<uint64_t>& dims, DType dtype);
  void get_tensor_key(const std::string& key, const std::function<void*(const TensorHeader&)>& allocate);
  Tensor get_tensor_at(const std::string& key);
  void delete_tensor_key(const std::string& key);
  void put_dataset_key(const std::string& key, const Dataset& dataset);
  Dataset get_dataset_key(const std::string& key, const std::string& name);
  template <class F>
  auto with_redirects(F&& f) -> decltype(f());
  void store_model(const std::string& name, ModelRecord& record);
  void forget_everywhere(const std::string& key, const std::string& what);
  std::string read_model_blob(const std::string& name, const char* what);
  void delete_model_key(const std::string& name, const char* what);
  Connection& service_beside(const std::string& shard);
  void call_service(const std::string& shard, const std::vector<std::string_view>& argv, const std::string& what);
  void run_call(std::vector<std::string> head, const std::vector<std::string>& inputs,
                const std::vector<std::string>& outputs, const std::string& what);

  std::unique_ptr<Router> router_;
  std::string password_;
  std::map<std::string, std::unique_ptr<Connection>> services_;  // shard address -> its inference service
  std::string out_prefix_;
  std::vector<std::string> sources_;
  std::string source_;
  bool tensor_prefix_ = true, dataset_prefix_ = true, list_prefix_ = true, model_prefix_ = false;
  uint32_t chunk_bytes_;
};

}  // namespace ssim::client

namespace ssim {
using Client = client::Client;
}
