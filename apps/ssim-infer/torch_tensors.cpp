#include "apps/ssim-infer/torch_tensors.hpp"

#include "apps/ssim-infer/service_error.hpp"

namespace ssim::infer {

namespace {

using client::DType;

torch::ScalarType to_torch(DType t, const std::string& key) {
  switch (t) {
    case DType::F64:
      return torch::kFloat64;
    case DType::F32:
      return torch::kFloat32;
    case DType::F16:
      return torch::kFloat16;
    case DType::BF16:
      return torch::kBFloat16;
    case DType::I8:
      return torch::kInt8;
    case DType::I16:
      return torch::kInt16;
    case DType::I32:
      return torch::kInt32;
    case DType::I64:
      return torch::kInt64;
    case DType::U8:
      return torch::kUInt8;
    case DType::Bool:
      return torch::kBool;
    default:
      break;
  }
  throw ServiceError("tensor \"" + key + "\" has an unsigned type wider than 8 bits, which libtorch lacks");
}

DType from_torch(torch::ScalarType t, const std::string& key) {
  switch (t) {
    case torch::kFloat64:
      return DType::F64;
    case torch::kFloat32:
      return DType::F32;
    case torch::kFloat16:
      return DType::F16;
    case torch::kBFloat16:
      return DType::BF16;
    case torch::kInt8:
      return DType::I8;
    case torch::kInt16:
      return DType::I16;
    case torch::kInt32:
      return DType::I32;
    case torch::kInt64:
      return DType::I64;
    case torch::kUInt8:
      return DType::U8;
    case torch::kBool:
      return DType::Bool;
    default:
      break;
  }
  throw ServiceError(std::string("output \"") + key + "\" has type " + c10::toString(t) +
                     ", which the database's tensors cannot hold");
}

}  // namespace

torch::Tensor read_tensor(client::Client& db, const std::string& key) {
  torch::Tensor out;
  try {
    db.get_tensor_into(key, [&](DType dtype, const std::vector<uint64_t>& dims) {
      std::vector<int64_t> sizes(dims.begin(), dims.end());
      out = torch::empty(sizes, torch::TensorOptions().dtype(to_torch(dtype, key)));
      return out.data_ptr();
    });
  } catch (const client::KeyNotFound&) {
    throw ServiceError("input tensor \"" + key + "\" is not in the database");
  }
  return out;
}

void write_tensor(client::Client& db, const std::string& key, const torch::Tensor& t) {
  const torch::Tensor c = t.to(torch::kCPU).contiguous();
  std::vector<uint64_t> dims(c.sizes().begin(), c.sizes().end());
  db.put_tensor(key, c.data_ptr(), dims, from_torch(c.scalar_type(), key));
}

}  // namespace ssim::infer
