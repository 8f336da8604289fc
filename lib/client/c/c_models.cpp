// The C API's models and scripts (ssim_client.h, "models and scripts").
#include <cstdlib>
#include <cstring>

#include "lib/client/c/c_internal.hpp"

using namespace ssim::client;
using namespace ssim::client::c_api;

namespace {

std::string device_or_cpu(const char* device) { return device ? device : "CPU"; }

std::vector<std::string> names(const char* const* list, size_t n, const char* what) {
  if (n > 0) need(list, what);
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) out.emplace_back(str(list[i], what));
  return out;
}

// Fortran's character arrays: n names of `width` bytes, trailing blanks not part of them.
std::vector<std::string> padded_names(const char* list, size_t n, size_t width, const char* what) {
  if (n > 0) need(list, what);
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) {
    std::string name(list + i * width, width);
    const size_t end = name.find_last_not_of(' ');
    out.push_back(end == std::string::npos ? "" : name.substr(0, end + 1));
  }
  return out;
}

}  // namespace

extern "C" {

ssim_status ssim_set_model(ssim_client* c, const char* name, const void* model, size_t model_bytes, const char* device,
                           int batch_size, int min_batch_size, int min_batch_timeout) {
  return guard([&] {
    need(c, "client");
    need(model, "model");
    c->impl.set_model(str(name, "name"), std::string(static_cast<const char*>(model), model_bytes), "TORCH",
                      device_or_cpu(device), batch_size, min_batch_size, min_batch_timeout);
  });
}

ssim_status ssim_set_model_from_file(ssim_client* c, const char* name, const char* path, const char* device,
                                     int batch_size, int min_batch_size, int min_batch_timeout) {
  return guard([&] {
    need(c, "client");
    c->impl.set_model_from_file(str(name, "name"), str(path, "path"), "TORCH", device_or_cpu(device), batch_size,
                                min_batch_size, min_batch_timeout);
  });
}

ssim_status ssim_set_script(ssim_client* c, const char* name, const char* device, const char* script) {
  return guard([&] {
    need(c, "client");
    c->impl.set_script(str(name, "name"), device_or_cpu(device), str(script, "script"));
  });
}

ssim_status ssim_set_script_from_file(ssim_client* c, const char* name, const char* device, const char* path) {
  return guard([&] {
    need(c, "client");
    c->impl.set_script_from_file(str(name, "name"), device_or_cpu(device), str(path, "path"));
  });
}

ssim_status ssim_run_model(ssim_client* c, const char* name, const char* const* inputs, size_t n_inputs,
                           const char* const* outputs, size_t n_outputs) {
  return guard([&] {
    need(c, "client");
    c->impl.run_model(str(name, "name"), names(inputs, n_inputs, "inputs"), names(outputs, n_outputs, "outputs"));
  });
}

ssim_status ssim_run_script(ssim_client* c, const char* name, const char* function, const char* const* inputs,
                            size_t n_inputs, const char* const* outputs, size_t n_outputs) {
  return guard([&] {
    need(c, "client");
    c->impl.run_script(str(name, "name"), str(function, "function"), names(inputs, n_inputs, "inputs"),
                       names(outputs, n_outputs, "outputs"));
  });
}

ssim_status ssim_run_model_padded(ssim_client* c, const char* name, const char* inputs, size_t n_inputs,
                                  size_t input_width, const char* outputs, size_t n_outputs, size_t output_width) {
  return guard([&] {
    need(c, "client");
    c->impl.run_model(str(name, "name"), padded_names(inputs, n_inputs, input_width, "inputs"),
                      padded_names(outputs, n_outputs, output_width, "outputs"));
  });
}

ssim_status ssim_run_script_padded(ssim_client* c, const char* name, const char* function, const char* inputs,
                                   size_t n_inputs, size_t input_width, const char* outputs, size_t n_outputs,
                                   size_t output_width) {
  return guard([&] {
    need(c, "client");
    c->impl.run_script(str(name, "name"), str(function, "function"),
                       padded_names(inputs, n_inputs, input_width, "inputs"),
                       padded_names(outputs, n_outputs, output_width, "outputs"));
  });
}

ssim_status ssim_get_model(ssim_client* c, const char* name, void** model, size_t* model_bytes) {
  return guard([&] {
    need(c, "client");
    need(model, "model");
    need(model_bytes, "model_bytes");
    const std::string bytes = c->impl.get_model(str(name, "name"));
    void* out = std::malloc(bytes.size() ? bytes.size() : 1);
    if (!out) throw std::bad_alloc();
    std::memcpy(out, bytes.data(), bytes.size());
    *model = out;
    *model_bytes = bytes.size();
  });
}

void ssim_bytes_free(void* bytes) { std::free(bytes); }

ssim_status ssim_model_exists(ssim_client* c, const char* name, int* exists) {
  return guard([&] {
    need(c, "client");
    set_flag(exists, c->impl.model_exists(str(name, "name")));
  });
}

ssim_status ssim_poll_model(ssim_client* c, const char* name, int interval_ms, int tries, int* found) {
  return guard([&] {
    need(c, "client");
    set_flag(found, c->impl.poll_model(str(name, "name"), interval_ms, tries));
  });
}

ssim_status ssim_delete_model(ssim_client* c, const char* name) {
  return guard([&] {
    need(c, "client");
    c->impl.delete_model(str(name, "name"));
  });
}

ssim_status ssim_delete_script(ssim_client* c, const char* name) {
  return guard([&] {
    need(c, "client");
    c->impl.delete_script(str(name, "name"));
  });
}

}  // extern "C"
