#pragma once
// A named group of tensors plus string and number metadata, stored and read as a whole.
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "lib/client/tensor.hpp"

namespace ssim::client {

class Dataset {
 public:
  explicit Dataset(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }

  // Copies the data: the dataset owns its tensors.
  void add_tensor(const std::string& name, const void* data, const std::vector<uint64_t>& dims, DType dtype);
  void add_tensor(const std::string& name, Tensor tensor);
  void add_meta_string(const std::string& field, const std::string& value);
  void add_meta_scalar(const std::string& field, double value);
  void add_meta_scalar(const std::string& field, int64_t value);

  const Tensor& get_tensor(const std::string& name) const;  // throws KeyNotFound
  std::vector<std::string> tensor_names() const;
  std::vector<std::string> get_meta_strings(const std::string& field) const;
  std::vector<double> get_meta_scalars(const std::string& field) const;
  std::vector<std::string> meta_string_fields() const;
  std::vector<std::string> meta_scalar_fields() const;

  // The fields of the dataset's metadata hash, SmartRedis's layout (WIRE_FORMAT.md
  // "Datasets"): each string or scalar field, then ".tensor_names".
  std::vector<std::pair<std::string, std::string>> meta_fields() const;
  // Strings and scalars from those fields (any SmartRedis scalar type); returns the
  // tensor names ".tensor_names" lists. Throws TypeMismatch on a field it cannot read.
  std::vector<std::string> load_meta_fields(const std::map<std::string, std::string>& fields);

 private:
  std::string name_;
  std::vector<std::pair<std::string, Tensor>> tensors_;
  std::map<std::string, std::vector<std::string>> strings_;
  struct Scalars {
    uint8_t type = 4;  // SmartRedis's type code: 1 f64, 2 f32, 3 i32, 4 i64, 5 u32, 6 u64
    std::vector<std::variant<int64_t, double>> values;
  };
  std::map<std::string, Scalars> scalars_;
};

}  // namespace ssim::client
