#include "lib/client/dataset.hpp"

#include <nlohmann/json.hpp>

#include "lib/client/errors.hpp"

namespace ssim::client {

void Dataset::add_tensor(const std::string& name, const void* data, const std::vector<uint64_t>& dims, DType dtype) {
  add_tensor(name, Tensor(dtype, dims, data));
}

void Dataset::add_tensor(const std::string& name, Tensor tensor) {
  for (auto& [n, t] : tensors_)
    if (n == name) {
      t = std::move(tensor);
      return;
    }
  tensors_.emplace_back(name, std::move(tensor));
}

void Dataset::add_meta_string(const std::string& field, const std::string& value) { strings_[field].push_back(value); }

void Dataset::add_meta_scalar(const std::string& field, double value) {
  auto& s = scalars_[field];
  s.integer = false;
  s.values.emplace_back(value);
}

void Dataset::add_meta_scalar(const std::string& field, int64_t value) { scalars_[field].values.emplace_back(value); }

const Tensor& Dataset::get_tensor(const std::string& name) const {
  for (const auto& [n, t] : tensors_)
    if (n == name) return t;
  throw KeyNotFound("dataset \"" + name_ + "\" has no tensor \"" + name + "\"");
}

std::vector<std::string> Dataset::tensor_names() const {
  std::vector<std::string> out;
  for (const auto& [n, t] : tensors_) out.push_back(n);
  return out;
}

std::vector<std::string> Dataset::get_meta_strings(const std::string& field) const {
  auto it = strings_.find(field);
  if (it == strings_.end()) throw KeyNotFound("dataset \"" + name_ + "\" has no string field \"" + field + "\"");
  return it->second;
}

std::vector<double> Dataset::get_meta_scalars(const std::string& field) const {
  auto it = scalars_.find(field);
  if (it == scalars_.end()) throw KeyNotFound("dataset \"" + name_ + "\" has no scalar field \"" + field + "\"");
  std::vector<double> out;
  for (const auto& v : it->second.values)
    out.push_back(std::holds_alternative<double>(v) ? std::get<double>(v) : static_cast<double>(std::get<int64_t>(v)));
  return out;
}

std::vector<std::string> Dataset::meta_string_fields() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : strings_) out.push_back(k);
  return out;
}

std::vector<std::string> Dataset::meta_scalar_fields() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : scalars_) out.push_back(k);
  return out;
}

std::string Dataset::meta_json() const {
  nlohmann::json j;
  j["tensors"] = tensor_names();
  j["strings"] = nlohmann::json::object();
  for (const auto& [k, v] : strings_) j["strings"][k] = v;
  j["scalars"] = nlohmann::json::object();
  for (const auto& [k, s] : scalars_) {
    nlohmann::json values = nlohmann::json::array();
    for (const auto& v : s.values) {
      if (std::holds_alternative<double>(v))
        values.push_back(std::get<double>(v));
      else
        values.push_back(std::get<int64_t>(v));
    }
    j["scalars"][k] = {{"dtype", s.integer ? "i64" : "f64"}, {"values", values}};
  }
  return j.dump();
}

void Dataset::load_meta_json(const std::string& text) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) throw TypeMismatch("dataset \"" + name_ + "\" has unreadable metadata");
  const auto strings = j.value("strings", nlohmann::json::object());
  const auto scalars = j.value("scalars", nlohmann::json::object());
  for (const auto& [k, v] : strings.items()) strings_[k] = v.get<std::vector<std::string>>();
  for (const auto& [k, v] : scalars.items()) {
    Scalars s;
    s.integer = v.value("dtype", "f64") == "i64";
    for (const auto& x : v.value("values", nlohmann::json::array())) {
      if (s.integer)
        s.values.emplace_back(x.get<int64_t>());
      else
        s.values.emplace_back(x.get<double>());
    }
    scalars_[k] = std::move(s);
  }
}

}  // namespace ssim::client
