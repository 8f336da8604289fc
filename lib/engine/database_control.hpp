#pragma once
// What the engine and `ssim stop` ask of the database's shards over the network: ready,
// alive, a sample of their counters, shut down. A seam so unit tests drive the database
// phase without a server; real runs use the orchestrator's functions.
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/orchestrator/database.hpp"
#include "lib/plan/plan.hpp"

namespace ssim::engine {

class DatabaseControl {
 public:
  virtual ~DatabaseControl() = default;
  // Every shard reported its address and answers (the cluster formed when several);
  // `check` runs between tries and throws to give up. EnvironmentError on timeout.
  virtual std::vector<orchestrator::Address> wait_until_ready(const plan::Plan& plan, const std::string& password,
                                                              std::chrono::milliseconds timeout,
                                                              const std::function<void()>& check) = 0;
  // The shard whose address is in `run_dir` answers PING within `timeout`.
  virtual bool ping(const std::string& run_dir, const std::string& password, std::chrono::milliseconds timeout) = 0;
  // Its counters (orchestrator/shard_samples.hpp), nullopt when it does not answer.
  virtual std::optional<nlohmann::json> sample(const std::string& shard, const std::string& run_dir,
                                               const std::string& password, std::chrono::milliseconds timeout) = 0;
  // An external database (orchestrator.address) answers; EnvironmentError naming the one that does not.
  virtual void check_external(const std::string& addresses, const std::string& password,
                              std::chrono::milliseconds timeout) = 0;
  // SHUTDOWN [NO]SAVE to every shard in `run_dirs`.
  virtual orchestrator::ShutdownOutcome shutdown(const std::vector<std::string>& run_dirs, const std::string& password,
                                                 bool save) = 0;
};

// The real one: the orchestrator's functions, over the network.
DatabaseControl& network_database_control();

}  // namespace ssim::engine
