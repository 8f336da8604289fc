#include "apps/ssim-infer/model_cache.hpp"

#include <torch/cuda.h>
#include <torch/jit.h>
#include <torch/csrc/jit/serialization/import.h>

#include <sstream>

#include "apps/ssim-infer/service_error.hpp"

namespace ssim::infer {

namespace {

constexpr std::chrono::seconds kConnectTimeout{10};

// "GPU:1" -> cuda:1, with a clear error where this node has no such GPU (never a silent
// fallback to the CPU).
torch::Device device_for(const std::string& device, const std::string& name) {
  if (device == "CPU") return torch::kCPU;
  const int index = device == "GPU" ? 0 : std::stoi(device.substr(4));
  const auto count = torch::cuda::is_available() ? static_cast<int>(torch::cuda::device_count()) : 0;
  if (index >= count)
    throw ServiceError("\"" + name + "\" is stored for " + device + ", but the node that serves it has " +
                       std::to_string(count) + " GPU" + (count == 1 ? "" : "s") +
                       " that libtorch can use; store it for CPU, or serve it from a node with a GPU");
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
}

Tensors tensors_of(const c10::IValue& v, const std::string& name) {
  if (v.isTensor()) return {v.toTensor()};
  Tensors out;
  auto add = [&](const c10::IValue& e) {
    if (!e.isTensor()) throw ServiceError("\"" + name + "\" returned something other than tensors");
    out.push_back(e.toTensor());
  };
  if (v.isTuple())
    for (const auto& e : v.toTupleRef().elements()) add(e);
  else if (v.isList())
    for (const auto& e : v.toListRef()) add(e);
  else
    throw ServiceError("\"" + name + "\" returned " + v.tagKind() + ", not a tensor or tensors");
  return out;
}

// The first line that says something (libtorch's messages may start with a blank one).
std::string first_line(const std::string& text) {
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find('\n', i);
    if (j == std::string::npos) j = text.size();
    const std::string line = text.substr(i, j - i);
    if (line.find_first_not_of(" \t\r") != std::string::npos) return line;
    i = j + 1;
  }
  return "no reason given";
}

}  // namespace

Tensors LoadedModel::run(const Tensors& inputs, const std::string& function) {
  c10::InferenceMode guard;
  std::vector<c10::IValue> args;
  for (const auto& t : inputs) args.emplace_back(t.to(device));
  c10::IValue result;
  if (kind == client::ModelKind::Model) {
    result = module->forward(args);
  } else {
    if (!script->find_function(function))
      throw ServiceError("script \"" + name + "\" has no function \"" + function + "\"");
    auto& fn = script->get_function(function);
    // A function of one List[Tensor] argument gets every input in that list.
    const auto& params = fn.getSchema().arguments();
    if (params.size() == 1 && params[0].type()->kind() == c10::TypeKind::ListType) {
      c10::List<torch::Tensor> list;
      for (const auto& a : args) list.push_back(a.toTensor());
      result = fn({c10::IValue(list)});
    } else {
      result = fn(args);
    }
  }
  Tensors out = tensors_of(result, name);
  for (auto& t : out) t = t.to(torch::kCPU);
  return out;
}

ModelCache::ModelCache(const std::string& db, const std::string& local, const std::string& password,
                       ServiceStats& stats)
    : db_(local.empty() ? db : local, password, kConnectTimeout), stats_(stats) {
  if (!local.empty()) db_.connect_via(db, local);
}

std::shared_ptr<LoadedModel> ModelCache::get(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = loaded_.find(key);
  if (it != loaded_.end()) return it->second;
  auto m = load(key);
  loaded_[key] = m;
  return m;
}

void ModelCache::forget(const std::string& key) {
  std::shared_ptr<LoadedModel> old;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = loaded_.find(key);
  if (it != loaded_.end()) old = std::move(it->second), loaded_.erase(it);
  // `old` goes when its last running call ends (shared_ptr), not under a caller's feet.
}

std::shared_ptr<LoadedModel> ModelCache::load(const std::string& key) {
  const std::string name = client::model_name(key);
  std::map<std::string, std::string> fields;
  for (int attempt = 0;; ++attempt) {
    try {
      auto r = db_.command(key, {"HGETALL", key});
      for (size_t i = 0; i + 1 < r->elements; i += 2)
        fields[std::string(r->element[i]->str, r->element[i]->len)] =
            std::string(r->element[i + 1]->str, r->element[i + 1]->len);
      break;
    } catch (const client::ReplyError& e) {
      if (!e.moved() || attempt > 0) throw ServiceError("cannot read \"" + name + "\": " + e.text);
      db_.refresh();  // the slot moved: once more with the new map
    }
  }
  if (fields.empty()) throw ServiceError("model or script \"" + name + "\" is not stored in the database");
  client::ModelRecord record;
  try {
    record = client::model_from_fields(key, fields);
  } catch (const client::ClientError& e) {
    throw ServiceError(e.what());
  }
  auto m = std::make_shared<LoadedModel>();
  m->name = name;
  m->kind = record.kind;
  m->device = device_for(record.device, name);
  try {
    if (record.kind == client::ModelKind::Model) {
      std::istringstream in(record.blob);
      m->module = torch::jit::load(in, m->device);
      m->module->eval();
    } else {
      m->script = torch::jit::compile(record.blob);
    }
  } catch (const c10::Error& e) {
    throw ServiceError("\"" + name + "\" does not load as TorchScript: " + first_line(e.what_without_backtrace()));
  } catch (const std::exception& e) {  // a script's compile error (torch::jit::ErrorReport)
    throw ServiceError("\"" + name + "\" does not load as TorchScript: " + first_line(e.what()));
  }
  if (record.kind == client::ModelKind::Model && record.batch_size > 0) {
    LoadedModel* raw = m.get();
    m->batcher = std::make_unique<Batcher>(
        [raw](const Tensors& in) { return raw->run(in); }, [this, name](int64_t rows) { stats_.batch(name, rows); },
        record.batch_size, record.min_batch_size, std::chrono::milliseconds(record.min_batch_timeout_ms));
  }
  return m;
}

}  // namespace ssim::infer
