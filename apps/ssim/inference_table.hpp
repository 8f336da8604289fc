#pragma once
// The inference services beside the database's shards, under `ssim status`'s table: one
// row per service and model (calls, errors, mean and p99 latency, batch sizes).
#include <ostream>

#include "lib/state/manifest.hpp"

namespace ssim::app {

// Prints nothing when no shard has an inference service.
void print_inference_table(std::ostream& out, const state::Manifest& m);

}  // namespace ssim::app
