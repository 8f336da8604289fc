#pragma once
// While a run lasts, the engine samples every shard every few seconds (memory, peak,
// clients, ops per second, keys) into <path>/.ssim/db_samples.ndjson, one JSON object
// per line. The file stays under 2 MiB: past it, every other line is dropped (the run's
// whole span is kept, at a coarser step). `ssim report` draws them.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ssim::orchestrator {

std::string samples_path(const std::string& experiment_path);

// {"time", "shard", "used_memory", "used_memory_peak", "connected_clients",
//  "ops_per_sec", "keys"} from INFO of the shard whose address is in `run_dir`; nullopt
// when it has none yet or does not answer within `timeout`.
std::optional<nlohmann::json> sample_shard(const std::string& shard, const std::string& run_dir,
                                           const std::string& password, std::chrono::milliseconds timeout);
// The fields of an INFO reply ("field:value" lines), as numbers where they are numbers.
nlohmann::json sample_from_info(const std::string& info);

void append_samples(const std::string& experiment_path, const std::vector<nlohmann::json>& samples);
std::vector<nlohmann::json> read_samples(const std::string& experiment_path);

}  // namespace ssim::orchestrator
