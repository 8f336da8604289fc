#include "lib/client/dataset.hpp"

#include <cstring>

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
  s.type = 1;
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

namespace {

// SmartRedis's metadata value: one type byte, then the values little-endian, or for
// strings an 8-byte little-endian length before each.
constexpr uint8_t kString = 7;
constexpr char kTensorNames[] = ".tensor_names";

size_t scalar_size(uint8_t type) { return type == 2 || type == 3 || type == 5 ? 4 : 8; }

template <class T>
void put(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}

template <class T>
T take(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

std::string encode_strings(const std::vector<std::string>& values) {
  std::string out(1, static_cast<char>(kString));
  for (const auto& v : values) {
    put<uint64_t>(out, v.size());
    out += v;
  }
  return out;
}

std::vector<std::string> decode_strings(const std::string& bytes, const std::string& what) {
  std::vector<std::string> out;
  for (size_t at = 1; at < bytes.size();) {
    if (at + 8 > bytes.size()) throw TypeMismatch(what + " is truncated");
    const uint64_t n = take<uint64_t>(bytes.data() + at);
    at += 8;
    if (n > bytes.size() - at) throw TypeMismatch(what + " is truncated");
    out.emplace_back(bytes, at, n);
    at += n;
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> Dataset::meta_fields() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [k, v] : strings_) out.emplace_back(k, encode_strings(v));
  for (const auto& [k, s] : scalars_) {
    std::string bytes(1, static_cast<char>(s.type));
    for (const auto& v : s.values) {
      const bool real = std::holds_alternative<double>(v);
      const double d = real ? std::get<double>(v) : static_cast<double>(std::get<int64_t>(v));
      const int64_t i = real ? static_cast<int64_t>(std::get<double>(v)) : std::get<int64_t>(v);
      switch (s.type) {
        case 1:
          put<double>(bytes, d);
          break;
        case 2:
          put<float>(bytes, static_cast<float>(d));
          break;
        case 3:
          put<int32_t>(bytes, static_cast<int32_t>(i));
          break;
        case 5:
          put<uint32_t>(bytes, static_cast<uint32_t>(i));
          break;
        case 6:
          put<uint64_t>(bytes, static_cast<uint64_t>(i));
          break;
        default:
          put<int64_t>(bytes, i);
          break;
      }
    }
    out.emplace_back(k, std::move(bytes));
  }
  out.emplace_back(kTensorNames, encode_strings(tensor_names()));
  return out;
}

std::vector<std::string> Dataset::load_meta_fields(const std::map<std::string, std::string>& fields) {
  std::vector<std::string> tensors;
  for (const auto& [field, bytes] : fields) {
    const std::string what = "dataset \"" + name_ + "\" field \"" + field + "\"";
    if (field == kTensorNames) {
      tensors = decode_strings(bytes, what);
      continue;
    }
    if (!field.empty() && field[0] == '.') continue;  // SmartRedis's own marks (.COMPLETE)
    if (bytes.empty()) throw TypeMismatch(what + " is empty");
    const auto type = static_cast<uint8_t>(bytes[0]);
    if (type == kString) {
      strings_[field] = decode_strings(bytes, what);
      continue;
    }
    if (type < 1 || type > 6) throw TypeMismatch(what + " has an unknown type " + std::to_string(type));
    const size_t size = scalar_size(type);
    if ((bytes.size() - 1) % size != 0) throw TypeMismatch(what + " is truncated");
    Scalars s;
    s.type = type;
    for (const char* p = bytes.data() + 1; p < bytes.data() + bytes.size(); p += size) {
      switch (type) {
        case 1:
          s.values.emplace_back(take<double>(p));
          break;
        case 2:
          s.values.emplace_back(static_cast<double>(take<float>(p)));
          break;
        case 3:
          s.values.emplace_back(static_cast<int64_t>(take<int32_t>(p)));
          break;
        case 5:
          s.values.emplace_back(static_cast<int64_t>(take<uint32_t>(p)));
          break;
        case 6:
          s.values.emplace_back(static_cast<int64_t>(take<uint64_t>(p)));
          break;
        default:
          s.values.emplace_back(take<int64_t>(p));
          break;
      }
    }
    scalars_[field] = std::move(s);
  }
  return tensors;
}

}  // namespace ssim::client
