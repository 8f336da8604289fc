#pragma once
// What each shard's inference service leaves in the shard's run directory, read for
// `ssim status`, the report and the dashboard: inference.json (written once it serves:
// pid, start ticks, host, address) and inference-stats.json (per model: calls, errors,
// mean and p99 latency, batches). The service (apps/ssim-infer) writes both.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace ssim::orchestrator {

std::string inference_file(const std::string& run_dir);
std::string inference_stats_file(const std::string& run_dir);

// {shard, pid, host, address, status, models: {NAME: {calls, errors, mean_ms, p99_ms,
// batches, mean_batch, max_batch}}} for the service beside the shard at `run_dir`, or
// nullopt when none ever served there. status: "running" or "ended" (by pid on this host;
// on another host, `shard_running` says: the service runs as long as its shard's step).
std::optional<nlohmann::json> inference_status(const std::string& shard, const std::string& run_dir,
                                               bool shard_running);

}  // namespace ssim::orchestrator
