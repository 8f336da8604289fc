// Datasets and aggregation lists of ssim::Client (WIRE_FORMAT.md).
#include <map>

#include "lib/client/bulk.hpp"
#include "lib/client/client.hpp"
#include "lib/client/client_internal.hpp"
#include "lib/client/router.hpp"
#include "lib/client/wire_format.hpp"

namespace ssim::client {

// ---- datasets ---------------------------------------------------------------

// SmartRedis's layout (WIRE_FORMAT.md "Datasets"): a dataset D is the hash {D}.meta and
// one tensor {D}.<name> per tensor; ".COMPLETE" is set last, and a dataset exists once
// it is there. A list holds "{D}" for each dataset.
namespace {
std::string meta_key(const std::string& dataset_key) { return "{" + dataset_key + "}.meta"; }
std::string member_key(const std::string& dataset_key, const std::string& tensor) {
  return "{" + dataset_key + "}." + tensor;
}
constexpr const char* kComplete = ".COMPLETE";
}  // namespace

void Client::put_dataset_key(const std::string& key, const Dataset& ds) {
  // Every key shares the hash tag {key}: one shard, one pipeline, in order.
  with_redirects([&] {
    SetBatch batch(*router_);
    const std::string mk = meta_key(key);
    batch.add(mk, {"DEL", mk});
    const auto fields = ds.meta_fields();
    std::vector<std::string_view> hset{"HSET", mk};
    for (const auto& [field, value] : fields) hset.insert(hset.end(), {field, value});
    batch.add(mk, hset);
    std::vector<std::string> headers;
    headers.reserve(ds.tensor_names().size());
    for (const auto& name : ds.tensor_names()) {
      const Tensor& t = ds.get_tensor(name);
      const std::string tk = member_key(key, name);
      TensorHeader h;
      h.dtype = t.dtype();
      h.dims = t.dims();
      h.payload_bytes = t.bytes();
      h.chunk_bytes = chunk_bytes_;
      const char* bytes = static_cast<const char*>(t.data());
      if (t.bytes() <= chunk_bytes_) {
        headers.push_back(encode_header(h));
        batch.set(tk, {headers.back(), std::string_view(bytes, t.bytes())});
        continue;
      }
      h.chunks = static_cast<uint32_t>((t.bytes() + chunk_bytes_ - 1) / chunk_bytes_);
      for (uint32_t i = 0; i < h.chunks; ++i) {
        const uint64_t off = static_cast<uint64_t>(i) * chunk_bytes_;
        batch.set(chunk_key(tk, i), {std::string_view(bytes + off, std::min<uint64_t>(chunk_bytes_, t.bytes() - off))});
      }
      headers.push_back(encode_header(h));
      batch.set(tk, {headers.back()});
    }
    batch.add(mk, {"HSET", mk, kComplete, "1"});
    batch.run();
  });
}

Dataset Client::get_dataset_key(const std::string& key, const std::string& name) {
  const std::string mk = meta_key(key);
  const Reply meta = with_redirects([&] { return router_->command(mk, {"HGETALL", mk}); });
  std::map<std::string, std::string> fields;
  for (size_t i = 0; i + 1 < meta->elements; i += 2)
    fields.emplace(std::string(meta->element[i]->str, meta->element[i]->len),
                   std::string(meta->element[i + 1]->str, meta->element[i + 1]->len));
  if (!fields.count(kComplete)) throw KeyNotFound("no dataset \"" + key + "\" in the database");
  Dataset ds(name);
  for (const auto& t : ds.load_meta_fields(fields)) ds.add_tensor(t, get_tensor_at(member_key(key, t)));
  return ds;
}

void Client::put_dataset(const Dataset& ds) { put_dataset_key(put_key(ds.name(), dataset_prefix_), ds); }

Dataset Client::get_dataset(const std::string& name) { return get_dataset_key(get_key(name, dataset_prefix_), name); }

bool Client::dataset_exists(const std::string& name) {
  const std::string mk = meta_key(get_key(name, dataset_prefix_));
  return with_redirects([&] { return router_->command(mk, {"HEXISTS", mk, kComplete})->integer == 1; });
}

bool Client::poll_dataset(const std::string& name, int interval_ms, int tries) {
  return poll_until([&] { return dataset_exists(name); }, interval_ms, tries);
}

void Client::delete_dataset(const std::string& name) {
  const std::string key = get_key(name, dataset_prefix_);
  const Dataset ds = get_dataset_key(key, name);
  for (const auto& t : ds.tensor_names()) delete_tensor_key(member_key(key, t));
  const std::string mk = meta_key(key);
  with_redirects([&] { return router_->command(mk, {"DEL", mk}); });
}

void Client::copy_dataset(const std::string& source, const std::string& destination) {
  const Dataset from = get_dataset_key(get_key(source, dataset_prefix_), source);
  Dataset to(destination);
  std::map<std::string, std::string> fields;
  for (auto& [field, value] : from.meta_fields()) fields.emplace(field, std::move(value));
  to.load_meta_fields(fields);
  for (const auto& t : from.tensor_names()) to.add_tensor(t, from.get_tensor(t));  // shares, no copy
  put_dataset(to);
}

void Client::rename_dataset(const std::string& source, const std::string& destination) {
  copy_dataset(source, destination);
  delete_dataset(source);
}

// ---- lists --------------------------------------------------------------------

void Client::append_to_list(const std::string& list, const Dataset& ds) {
  const std::string dk = put_key(ds.name(), dataset_prefix_);
  put_dataset_key(dk, ds);
  const std::string lk = put_key(list, list_prefix_);
  const std::string item = "{" + dk + "}";  // as SmartRedis writes it
  with_redirects([&] { return router_->command(lk, {"RPUSH", lk, item}); });
}

uint64_t Client::get_list_length(const std::string& list) {
  const std::string lk = get_key(list, list_prefix_);
  return static_cast<uint64_t>(with_redirects([&] { return router_->command(lk, {"LLEN", lk}); })->integer);
}

std::vector<Dataset> Client::get_datasets_from_list(const std::string& list, int64_t start, int64_t end) {
  const std::string lk = get_key(list, list_prefix_);
  const Reply items = with_redirects([&] {
    return router_->command(lk, {"LRANGE", lk, std::to_string(start), std::to_string(end)});
  });
  std::vector<Dataset> out;
  for (size_t i = 0; i < items->elements; ++i) {
    std::string dk(items->element[i]->str, items->element[i]->len);
    if (dk.size() >= 2 && dk.front() == '{' && dk.back() == '}') dk = dk.substr(1, dk.size() - 2);
    // The stored key carries its writer's prefix; the dataset keeps its plain name.
    const size_t dot = dk.find('.');
    const std::string name =
        dataset_prefix_ && dot != std::string::npos && !source_.empty() && dk.compare(0, dot, source_) == 0
            ? dk.substr(dot + 1)
            : dk;
    out.push_back(get_dataset_key(dk, name));
  }
  return out;
}

bool Client::poll_list_length(const std::string& list, uint64_t min_length, int interval_ms, int tries) {
  return poll_until([&] { return get_list_length(list) >= min_length; }, interval_ms, tries);
}

void Client::delete_list(const std::string& list) {
  const std::string lk = get_key(list, list_prefix_);
  with_redirects([&] { return router_->command(lk, {"DEL", lk}); });
}

bool Client::poll_list_length_lte(const std::string& list, uint64_t length, int interval_ms, int tries) {
  return poll_until([&] { return get_list_length(list) <= length; }, interval_ms, tries);
}

// A list holds dataset keys: copying it copies the keys (both lists name the same
// datasets), as SmartRedis does. Not RENAME: on a cluster the two keys may live on
// different shards.
void Client::copy_list(const std::string& source, const std::string& destination) {
  const std::string from = get_key(source, list_prefix_);
  const std::string to = put_key(destination, list_prefix_);
  const Reply items = with_redirects([&] { return router_->command(from, {"LRANGE", from, "0", "-1"}); });
  if (items->elements == 0) throw KeyNotFound("no list \"" + from + "\" in the database");
  std::vector<std::string_view> argv{"RPUSH", to};
  for (size_t i = 0; i < items->elements; ++i) argv.emplace_back(items->element[i]->str, items->element[i]->len);
  with_redirects([&] {
    router_->command(to, {"DEL", to});
    return router_->command(to, argv);
  });
}

void Client::rename_list(const std::string& source, const std::string& destination) {
  copy_list(source, destination);
  delete_list(source);
}

}  // namespace ssim::client
