#pragma once
// Tensors between the database's wire format and libtorch.
#include <torch/script.h>

#include <string>

#include "lib/client/client.hpp"

namespace ssim::infer {

// Reads the tensor stored at `key` (no prefix: the caller sent full keys) straight into
// a new torch tensor. Throws ServiceError naming the key when it is missing.
torch::Tensor read_tensor(client::Client& db, const std::string& key);
// Stores `t` (moved to the CPU and made contiguous) at `key`.
void write_tensor(client::Client& db, const std::string& key, const torch::Tensor& t);

}  // namespace ssim::infer
