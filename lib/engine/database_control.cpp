#include "lib/engine/database_control.hpp"

#include "lib/orchestrator/shard_samples.hpp"

namespace ssim::engine {

namespace {
class NetworkDatabaseControl : public DatabaseControl {
 public:
  std::vector<orchestrator::Address> wait_until_ready(const plan::Plan& plan, const std::string& password,
                                                      std::chrono::milliseconds timeout,
                                                      const std::function<void()>& check) override {
    return orchestrator::wait_until_ready(plan, password, timeout, check);
  }
  bool ping(const std::string& run_dir, const std::string& password, std::chrono::milliseconds timeout) override {
    return orchestrator::ping_shard(run_dir, password, timeout);
  }
  std::optional<nlohmann::json> sample(const std::string& shard, const std::string& run_dir,
                                       const std::string& password, std::chrono::milliseconds timeout) override {
    return orchestrator::sample_shard(shard, run_dir, password, timeout);
  }
  void check_external(const std::string& addresses, const std::string& password,
                      std::chrono::milliseconds timeout) override {
    orchestrator::check_external(addresses, password, timeout);
  }
  orchestrator::ShutdownOutcome shutdown(const std::vector<std::string>& run_dirs, const std::string& password,
                                         bool save) override {
    return orchestrator::shutdown_shards(run_dirs, password, save);
  }
};
}  // namespace

DatabaseControl& network_database_control() {
  static NetworkDatabaseControl control;
  return control;
}

}  // namespace ssim::engine
