// The C API: dataset objects, datasets in the database, and aggregation lists.
#include <stdexcept>

#include "lib/client/c/c_internal.hpp"
#include "lib/client/layout.hpp"

using namespace ssim::client;
using namespace ssim::client::c_api;

namespace {
ssim_dataset* wrap(Dataset d) { return new ssim_dataset{std::move(d), {}, {}}; }
const std::vector<std::string>& strings_of(const ssim_dataset* ds, const std::string& field) {
  auto it = ds->strings.find(field);
  if (it == ds->strings.end()) it = ds->strings.emplace(field, ds->impl.get_meta_strings(field)).first;
  return it->second;
}
}  // namespace

extern "C" {

ssim_status ssim_dataset_new(const char* name, ssim_dataset** out) {
  return guard([&] {
    need(out, "out");
    *out = nullptr;
    *out = wrap(Dataset(str(name, "name")));
  });
}

void ssim_dataset_free(ssim_dataset* ds) { delete ds; }
const char* ssim_dataset_name(const ssim_dataset* ds) { return ds->impl.name().c_str(); }

ssim_status ssim_dataset_add_tensor(ssim_dataset* ds, const char* name, const void* data, const uint64_t* dims,
                                    size_t ndims, ssim_dtype dtype, ssim_layout layout) {
  return guard([&] {
    need(ds, "dataset");
    const DType t = checked_dtype(dtype);
    const auto d = dims_of(dims, ndims);
    if (layout == SSIM_LAYOUT_FORTRAN && d.size() >= 2) {
      need(data, "data");
      Tensor reordered(t, d);  // straight into the dataset's own copy
      fortran_to_c_order(data, reordered.data(), d, dtype_size(t));
      ds->impl.add_tensor(str(name, "name"), std::move(reordered));
      return;
    }
    std::vector<std::byte> unused;
    ds->impl.add_tensor(str(name, "name"), row_major(data, d, t, layout, unused), d, t);
  });
}

ssim_status ssim_dataset_add_meta_string(ssim_dataset* ds, const char* field, const char* value) {
  return guard([&] {
    need(ds, "dataset");
    ds->impl.add_meta_string(str(field, "field"), str(value, "value"));
    ds->strings.erase(field);
  });
}

ssim_status ssim_dataset_add_meta_scalar_f64(ssim_dataset* ds, const char* field, double value) {
  return guard([&] {
    need(ds, "dataset");
    ds->impl.add_meta_scalar(str(field, "field"), value);
  });
}

ssim_status ssim_dataset_add_meta_scalar_i64(ssim_dataset* ds, const char* field, int64_t value) {
  return guard([&] {
    need(ds, "dataset");
    ds->impl.add_meta_scalar(str(field, "field"), value);
  });
}

ssim_status ssim_dataset_get_tensor(const ssim_dataset* ds, const char* name, const ssim_tensor** out) {
  return guard([&] {
    need(ds, "dataset");
    need(out, "out");
    *out = nullptr;
    auto& slot = ds->tensors[str(name, "name")];
    if (!slot) slot = std::make_unique<ssim_tensor>(ssim_tensor{ds->impl.get_tensor(name)});
    *out = slot.get();
  });
}

ssim_status ssim_dataset_unpack_tensor(const ssim_dataset* ds, const char* name, void* data, const uint64_t* dims,
                                       size_t ndims, ssim_dtype dtype, ssim_layout layout) {
  return guard([&] {
    need(ds, "dataset");
    const Tensor& stored = ds->impl.get_tensor(str(name, "name"));
    unpack_into(stored, "tensor \"" + std::string(name) + "\" of dataset \"" + ds->impl.name() + "\"", data,
                dims_of(dims, ndims), checked_dtype(dtype), layout);
  });
}

ssim_status ssim_dataset_meta_string_count(const ssim_dataset* ds, const char* field, size_t* count) {
  return guard([&] {
    need(ds, "dataset");
    need(count, "count");
    *count = strings_of(ds, str(field, "field")).size();
  });
}

ssim_status ssim_dataset_get_meta_string(const ssim_dataset* ds, const char* field, size_t index, const char** value) {
  return guard([&] {
    need(ds, "dataset");
    need(value, "value");
    const auto& values = strings_of(ds, str(field, "field"));
    if (index >= values.size())
      throw KeyNotFound("field \"" + std::string(field) + "\" has " + std::to_string(values.size()) + " strings");
    *value = values[index].c_str();
  });
}

ssim_status ssim_dataset_meta_scalar_count(const ssim_dataset* ds, const char* field, size_t* count) {
  return guard([&] {
    need(ds, "dataset");
    need(count, "count");
    *count = ds->impl.get_meta_scalars(str(field, "field")).size();
  });
}

ssim_status ssim_dataset_get_meta_scalar(const ssim_dataset* ds, const char* field, size_t index, double* value) {
  return guard([&] {
    need(ds, "dataset");
    need(value, "value");
    const auto values = ds->impl.get_meta_scalars(str(field, "field"));
    if (index >= values.size())
      throw KeyNotFound("field \"" + std::string(field) + "\" has " + std::to_string(values.size()) + " scalars");
    *value = values[index];
  });
}

// ---- datasets in the database ----

ssim_status ssim_put_dataset(ssim_client* c, const ssim_dataset* ds) {
  return guard([&] {
    need(c, "client");
    need(ds, "dataset");
    c->impl.put_dataset(ds->impl);
  });
}

ssim_status ssim_get_dataset(ssim_client* c, const char* name, ssim_dataset** out) {
  return guard([&] {
    need(c, "client");
    need(out, "out");
    *out = nullptr;
    *out = wrap(c->impl.get_dataset(str(name, "name")));
  });
}

ssim_status ssim_dataset_exists(ssim_client* c, const char* name, int* exists) {
  return guard([&] {
    need(c, "client");
    set_flag(exists, c->impl.dataset_exists(str(name, "name")));
  });
}

ssim_status ssim_poll_dataset(ssim_client* c, const char* name, int interval_ms, int tries, int* found) {
  return guard([&] {
    need(c, "client");
    set_flag(found, c->impl.poll_dataset(str(name, "name"), interval_ms, tries));
  });
}

ssim_status ssim_delete_dataset(ssim_client* c, const char* name) {
  return guard([&] {
    need(c, "client");
    c->impl.delete_dataset(str(name, "name"));
  });
}

ssim_status ssim_copy_dataset(ssim_client* c, const char* source, const char* destination) {
  return guard([&] {
    need(c, "client");
    c->impl.copy_dataset(str(source, "source"), str(destination, "destination"));
  });
}

ssim_status ssim_rename_dataset(ssim_client* c, const char* source, const char* destination) {
  return guard([&] {
    need(c, "client");
    c->impl.rename_dataset(str(source, "source"), str(destination, "destination"));
  });
}

// ---- lists ----

ssim_status ssim_append_to_list(ssim_client* c, const char* list, const ssim_dataset* ds) {
  return guard([&] {
    need(c, "client");
    need(ds, "dataset");
    c->impl.append_to_list(str(list, "list"), ds->impl);
  });
}

ssim_status ssim_get_list_length(ssim_client* c, const char* list, uint64_t* length) {
  return guard([&] {
    need(c, "client");
    need(length, "length");
    *length = c->impl.get_list_length(str(list, "list"));
  });
}

ssim_status ssim_poll_list_length(ssim_client* c, const char* list, uint64_t min_length, int interval_ms, int tries,
                                  int* reached) {
  return guard([&] {
    need(c, "client");
    set_flag(reached, c->impl.poll_list_length(str(list, "list"), min_length, interval_ms, tries));
  });
}

ssim_status ssim_poll_list_length_gte(ssim_client* c, const char* list, uint64_t length, int interval_ms, int tries,
                                      int* reached) {
  return ssim_poll_list_length(c, list, length, interval_ms, tries, reached);
}

ssim_status ssim_poll_list_length_lte(ssim_client* c, const char* list, uint64_t length, int interval_ms, int tries,
                                      int* reached) {
  return guard([&] {
    need(c, "client");
    set_flag(reached, c->impl.poll_list_length_lte(str(list, "list"), length, interval_ms, tries));
  });
}

ssim_status ssim_get_datasets_from_list(ssim_client* c, const char* list, int64_t start, int64_t end,
                                        ssim_dataset*** out, size_t* count) {
  return guard([&] {
    need(c, "client");
    need(out, "out");
    need(count, "count");
    *out = nullptr;
    *count = 0;
    auto items = c->impl.get_datasets_from_list(str(list, "list"), start, end);
    auto array = std::make_unique<ssim_dataset*[]>(items.size());
    for (size_t i = 0; i < items.size(); ++i) array[i] = wrap(std::move(items[i]));
    *count = items.size();
    *out = array.release();
  });
}

void ssim_dataset_array_free(ssim_dataset** array, size_t count) {
  if (!array) return;
  for (size_t i = 0; i < count; ++i) delete array[i];
  delete[] array;
}

ssim_status ssim_delete_list(ssim_client* c, const char* list) {
  return guard([&] {
    need(c, "client");
    c->impl.delete_list(str(list, "list"));
  });
}

ssim_status ssim_copy_list(ssim_client* c, const char* source, const char* destination) {
  return guard([&] {
    need(c, "client");
    c->impl.copy_list(str(source, "source"), str(destination, "destination"));
  });
}

ssim_status ssim_rename_list(ssim_client* c, const char* source, const char* destination) {
  return guard([&] {
    need(c, "client");
    c->impl.rename_list(str(source, "source"), str(destination, "destination"));
  });
}

}  // extern "C"
