#include "lib/client/model_record.hpp"

#include <cctype>

#include "lib/client/errors.hpp"
#include "lib/client/hash_slot.hpp"

namespace ssim::client {

namespace {
std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}
std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find(',', i);
    if (j == std::string::npos) j = text.size();
    if (j > i) out.push_back(text.substr(i, j - i));
    i = j + 1;
  }
  return out;
}
int number(const std::map<std::string, std::string>& f, const char* name) {
  auto it = f.find(name);
  if (it == f.end() || it->second.empty()) return 0;
  try {
    return std::stoi(it->second);
  } catch (const std::exception&) {
    return 0;
  }
}
}  // namespace

// The name itself, as RedisAI keeps a model: SmartRedis's model_exists asks EXISTS NAME,
// and a model stored through either client is the same key.
std::string model_key(const std::string& name) { return name; }

std::string model_name(const std::string& key) { return key; }

std::vector<std::string_view> model_fields(const ModelRecord& r, std::vector<std::string>& storage) {
  storage = {r.kind == ModelKind::Model ? "model" : "script",
             r.device,
             std::to_string(r.batch_size),
             std::to_string(r.min_batch_size),
             std::to_string(r.min_batch_timeout_ms),
             r.tag,
             joined(r.inputs),
             joined(r.outputs),
             r.version};
  return {"kind",     storage[0],          "device",   storage[1], "batch_size", storage[2], "min_batch_size",
          storage[3], "min_batch_timeout", storage[4], "tag",      storage[5],   "inputs",   storage[6],
          "outputs",  storage[7],          "version",  storage[8], "blob",       r.blob};
}

ModelRecord model_from_fields(const std::string& key, const std::map<std::string, std::string>& f) {
  auto get = [&](const char* name) {
    auto it = f.find(name);
    return it == f.end() ? std::string() : it->second;
  };
  const std::string kind = get("kind");
  if ((kind != "model" && kind != "script") || f.find("blob") == f.end())
    throw ClientError("\"" + key + "\" is not a model or script stored by ssim");
  ModelRecord r;
  r.kind = kind == "model" ? ModelKind::Model : ModelKind::Script;
  r.blob = get("blob");
  r.device = get("device").empty() ? "CPU" : get("device");
  r.batch_size = number(f, "batch_size");
  r.min_batch_size = number(f, "min_batch_size");
  r.min_batch_timeout_ms = number(f, "min_batch_timeout");
  r.tag = get("tag");
  r.inputs = split_names(get("inputs"));
  r.outputs = split_names(get("outputs"));
  r.version = get("version");
  return r;
}

std::string normalise_device(const std::string& device) {
  std::string d;
  for (char c : device) d += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (d == "CPU" || d == "GPU") return d;
  if (d.rfind("GPU:", 0) == 0 && d.size() > 4 && d.size() <= 7) {
    bool digits = true;
    for (size_t i = 4; i < d.size(); ++i) digits = digits && std::isdigit(static_cast<unsigned char>(d[i]));
    if (digits) return "GPU:" + std::to_string(std::stoi(d.substr(4)));
  }
  throw ClientError("device \"" + device + "\" is not CPU, GPU or GPU:n");
}

std::string inference_registry_key(const std::function<bool(uint16_t)>& owned) {
  for (int n = 0; n < 1 << 20; ++n) {
    std::string key = "{ssim.inference." + std::to_string(n) + "}";
    if (owned(hash_slot(key))) return key;
  }
  throw ClientError("no registry key hashes into this shard's slots (does it own any?)");
}

}  // namespace ssim::client
