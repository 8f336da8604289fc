#pragma once
// How callers find the service: its address is stored in its own shard under the key
// inference_registry_key() computes from the slots that shard owns (model_record.hpp).
#include <string>

namespace ssim::infer {

// Waits until the shard at `db` answers (and, in a cluster, owns slots: the cluster is
// formed after every shard answers), then stores `address` under the shard's registry
// key, which it returns.
std::string register_service(const std::string& db, const std::string& password, bool cluster,
                             const std::string& address);

}  // namespace ssim::infer
