// The C API: connecting, tensors, raw keys, prefixes and server commands.
#include <cstring>
#include <stdexcept>

#include "lib/client/c/c_internal.hpp"
#include "lib/client/metrics.hpp"

using namespace ssim::client;
using namespace ssim::client::c_api;

namespace {
// Copies `value` into buf, NUL-terminated; too small a buffer is an error, not a cut.
void give(const std::string& value, char* buf, size_t len) {
  need(buf, "buf");
  if (value.size() + 1 > len)
    throw std::invalid_argument("the buffer holds " + std::to_string(len) + " bytes; the value needs " +
                                std::to_string(value.size() + 1));
  std::memcpy(buf, value.c_str(), value.size() + 1);
}
std::vector<std::string> one_or_all(const char* address) {
  return address ? std::vector<std::string>{address} : std::vector<std::string>{};
}
}  // namespace

extern "C" {

const char* ssim_dtype_name(ssim_dtype dtype) {
  static const char* names[] = {nullptr, "f64", "f32", "f16", "bf16", "i8",  "i16",
                                "i32",   "i64", "u8",  "u16", "u32",  "u64", "bool"};
  const int code = static_cast<int>(dtype);
  return code >= 1 && code <= 13 ? names[code] : nullptr;
}

size_t ssim_dtype_size(ssim_dtype dtype) { return ssim_dtype_name(dtype) ? dtype_size(static_cast<DType>(dtype)) : 0; }

ssim_status ssim_client_new(ssim_client** out) {
  return guard([&] {
    need(out, "out");
    *out = nullptr;
    *out = new ssim_client{Client(), {}, {}};
  });
}

ssim_status ssim_client_connect(const char* address, const char* password, ssim_client** out) {
  return guard([&] {
    need(out, "out");
    *out = nullptr;
    *out = new ssim_client{Client(str(address, "address"), password ? password : ""), {}, {}};
  });
}

void ssim_client_free(ssim_client* client) { delete client; }

ssim_status ssim_is_cluster(ssim_client* c, int* is_cluster) {
  return guard([&] {
    need(c, "client");
    set_flag(is_cluster, c->impl.is_cluster());
  });
}

// ---- tensors ----

ssim_status ssim_put_tensor(ssim_client* c, const char* name, const void* data, const uint64_t* dims, size_t ndims,
                            ssim_dtype dtype, ssim_layout layout) {
  return guard([&] {
    need(c, "client");
    const DType t = checked_dtype(dtype);
    const auto d = dims_of(dims, ndims);
    c->impl.put_tensor(str(name, "name"), row_major(data, d, t, layout, c->scratch), d, t);
  });
}

ssim_status ssim_get_tensor(ssim_client* c, const char* name, ssim_tensor** out) {
  return guard([&] {
    need(c, "client");
    need(out, "out");
    *out = nullptr;
    auto t = std::make_unique<ssim_tensor>(ssim_tensor{c->impl.get_tensor(str(name, "name"))});
    *out = t.release();
  });
}

ssim_status ssim_unpack_tensor(ssim_client* c, const char* name, void* data, const uint64_t* dims, size_t ndims,
                               ssim_dtype dtype, ssim_layout layout) {
  return guard([&] {
    need(c, "client");
    const DType t = checked_dtype(dtype);
    const auto d = dims_of(dims, ndims);
    need(data, "data");
    check_layout(layout);
    if (layout == SSIM_LAYOUT_C || d.size() < 2) {
      c->impl.unpack_tensor(str(name, "name"), data, d, t);
      return;
    }
    // Checked against the stored tensor, read into the scratch buffer, then reordered.
    c->scratch.resize(payload_bytes(d, t));
    c->impl.unpack_tensor(str(name, "name"), c->scratch.data(), d, t);
    copy_out(c->scratch.data(), data, d, t, layout);
  });
}

ssim_status ssim_tensor_exists(ssim_client* c, const char* name, int* exists) {
  return guard([&] {
    need(c, "client");
    set_flag(exists, c->impl.tensor_exists(str(name, "name")));
  });
}

ssim_status ssim_poll_tensor(ssim_client* c, const char* name, int interval_ms, int tries, int* found) {
  return guard([&] {
    need(c, "client");
    set_flag(found, c->impl.poll_tensor(str(name, "name"), interval_ms, tries));
  });
}

ssim_status ssim_delete_tensor(ssim_client* c, const char* name) {
  return guard([&] {
    need(c, "client");
    c->impl.delete_tensor(str(name, "name"));
  });
}

ssim_status ssim_metric_log(const char* name, double value, long long step, long long epoch, const char* phase) {
  return guard([&] {
    ssim::metrics::log(str(name, "name"), value, step >= 0 ? std::optional<long long>(step) : std::nullopt,
                       epoch >= 0 ? std::optional<long long>(epoch) : std::nullopt, phase ? phase : "");
  });
}

ssim_status ssim_metric_flush(void) {
  return guard([] { ssim::metrics::flush(); });
}

ssim_status ssim_copy_tensor(ssim_client* c, const char* source, const char* destination) {
  return guard([&] {
    need(c, "client");
    c->impl.copy_tensor(str(source, "source"), str(destination, "destination"));
  });
}

ssim_status ssim_rename_tensor(ssim_client* c, const char* source, const char* destination) {
  return guard([&] {
    need(c, "client");
    c->impl.rename_tensor(str(source, "source"), str(destination, "destination"));
  });
}

ssim_dtype ssim_tensor_dtype(const ssim_tensor* t) { return static_cast<ssim_dtype>(t->impl.dtype()); }
size_t ssim_tensor_ndims(const ssim_tensor* t) { return t->impl.dims().size(); }
const uint64_t* ssim_tensor_dims(const ssim_tensor* t) { return t->impl.dims().data(); }
const void* ssim_tensor_data(const ssim_tensor* t) { return t->impl.data(); }
uint64_t ssim_tensor_bytes(const ssim_tensor* t) { return t->impl.bytes(); }
void ssim_tensor_free(ssim_tensor* t) { delete t; }

ssim_status ssim_tensor_unpack(const ssim_tensor* t, void* data, const uint64_t* dims, size_t ndims, ssim_dtype dtype,
                               ssim_layout layout) {
  return guard([&] {
    need(t, "tensor");
    unpack_into(t->impl, "the tensor", data, dims_of(dims, ndims), checked_dtype(dtype), layout);
  });
}

// ---- keys and prefixes ----

ssim_status ssim_key_exists(ssim_client* c, const char* key, int* exists) {
  return guard([&] {
    need(c, "client");
    set_flag(exists, c->impl.key_exists(str(key, "key")));
  });
}

ssim_status ssim_poll_key(ssim_client* c, const char* key, int interval_ms, int tries, int* found) {
  return guard([&] {
    need(c, "client");
    set_flag(found, c->impl.poll_key(str(key, "key"), interval_ms, tries));
  });
}

ssim_status ssim_set_data_source(ssim_client* c, const char* source) {
  return guard([&] {
    need(c, "client");
    c->impl.set_data_source(str(source, "source"));
  });
}

ssim_status ssim_use_tensor_ensemble_prefix(ssim_client* c, int on) {
  return guard([&] {
    need(c, "client");
    c->impl.use_tensor_ensemble_prefix(on != 0);
  });
}

ssim_status ssim_use_dataset_ensemble_prefix(ssim_client* c, int on) {
  return guard([&] {
    need(c, "client");
    c->impl.use_dataset_ensemble_prefix(on != 0);
  });
}

ssim_status ssim_use_list_ensemble_prefix(ssim_client* c, int on) {
  return guard([&] {
    need(c, "client");
    c->impl.use_list_ensemble_prefix(on != 0);
  });
}

// ---- servers ----

ssim_status ssim_db_address_count(ssim_client* c, size_t* count) {
  return guard([&] {
    need(c, "client");
    need(count, "count");
    c->addresses = c->impl.db_addresses();
    *count = c->addresses.size();
  });
}

ssim_status ssim_db_address(ssim_client* c, size_t index, const char** address) {
  return guard([&] {
    need(c, "client");
    need(address, "address");
    if (c->addresses.empty()) c->addresses = c->impl.db_addresses();
    if (index >= c->addresses.size())
      throw std::invalid_argument("index " + std::to_string(index) + " is past the " +
                                  std::to_string(c->addresses.size()) + " servers");
    *address = c->addresses[index].c_str();
  });
}

ssim_status ssim_get_db_node_info_field(ssim_client* c, const char* address, const char* field, char* buf, size_t len) {
  return guard([&] {
    need(c, "client");
    const auto info = c->impl.get_db_node_info(str(address, "address"));
    const auto it = info.find(str(field, "field"));
    if (it == info.end()) throw KeyNotFound(std::string("INFO has no field \"") + field + "\"");
    give(it->second, buf, len);
  });
}

ssim_status ssim_config_get(ssim_client* c, const char* parameter, const char* address, char* buf, size_t len) {
  return guard([&] {
    need(c, "client");
    const auto values = c->impl.config_get(str(parameter, "parameter"), str(address, "address"));
    const auto it = values.find(parameter);
    if (it == values.end()) throw KeyNotFound(std::string("no configuration parameter \"") + parameter + "\"");
    give(it->second, buf, len);
  });
}

ssim_status ssim_config_set(ssim_client* c, const char* parameter, const char* value, const char* address) {
  return guard([&] {
    need(c, "client");
    c->impl.config_set(str(parameter, "parameter"), str(value, "value"), str(address, "address"));
  });
}

ssim_status ssim_save(ssim_client* c, const char* address) {
  return guard([&] {
    need(c, "client");
    c->impl.save(one_or_all(address));
  });
}

ssim_status ssim_flush_db(ssim_client* c, const char* address) {
  return guard([&] {
    need(c, "client");
    c->impl.flush_db(one_or_all(address));
  });
}

}  // extern "C"
