#include "lib/orchestrator/inference_files.hpp"

#include <fstream>
#include <sstream>

#include "lib/util/processes.hpp"

namespace ssim::orchestrator {

namespace {
nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str(), nullptr, false);
}
}  // namespace

std::string inference_file(const std::string& run_dir) { return run_dir + "/inference.json"; }
std::string inference_stats_file(const std::string& run_dir) { return run_dir + "/inference-stats.json"; }

std::optional<nlohmann::json> inference_status(const std::string& shard, const std::string& run_dir,
                                               bool shard_running) {
  const nlohmann::json info = read_json(inference_file(run_dir));
  if (!info.is_object()) return std::nullopt;
  const int pid = info.value("pid", 0);
  const std::string host = info.value("host", "");
  const bool here = host.empty() || host == host_name();
  const bool running = here ? pid > 0 && process_alive(pid, info.value("start_ticks", "")) : shard_running;
  nlohmann::json out = {{"shard", shard},
                        {"pid", pid},
                        {"host", host},
                        {"address", info.value("address", "")},
                        {"status", running ? "running" : "ended"},
                        {"models", nlohmann::json::object()}};
  const nlohmann::json stats = read_json(inference_stats_file(run_dir));
  if (stats.is_object() && stats.contains("models") && stats["models"].is_object()) out["models"] = stats["models"];
  return out;
}

}  // namespace ssim::orchestrator
