#pragma once
// The database's shards as the engine sees them through DatabaseControl, without a
// server: ready at once (or never), answering pings as the test says, shutting down
// through the fake launcher's jobs (or ignoring SHUTDOWN, as a hung server does).
#include <set>

#include "lib/engine/database_control.hpp"
#include "lib/orchestrator/database.hpp"
#include "lib/util/errors.hpp"
#include "tests/unit/fake_launcher.hpp"

namespace ssim::test {

class FakeDatabase : public engine::DatabaseControl {
 public:
  FakeDatabase(FakeLauncher& launcher, const plan::Plan& plan) : launcher_(launcher) {
    if (plan.database)
      for (const auto& s : orchestrator::shards_of(*plan.database)) shard_of_[s.run_dir] = s;
  }
  bool comes_up = true;              // false: the shards never report (wait_until_ready times out)
  bool answers = true;               // what pings say
  bool shuts_down = true;            // false: SHUTDOWN is not answered, the shards keep running
  std::vector<bool> shutdown_saves;  // the save flag of each SHUTDOWN
  int pings = 0;

  std::vector<orchestrator::Address> wait_until_ready(const plan::Plan&, const std::string&, std::chrono::milliseconds,
                                                      const std::function<void()>& check) override {
    check();  // between tries, as the real wait does (a shard that ended, Ctrl-C)
    for (int tries = 0; !comes_up; ++tries) {
      if (tries == 50) throw EnvironmentError("the database did not answer within 30 s");
      check();
    }
    ready_ = true;
    std::vector<orchestrator::Address> out;
    for (const auto& [dir, shard] : shard_of_) out.push_back({"fakehost", shard.port});
    return out;
  }
  bool ping(const std::string&, const std::string&, std::chrono::milliseconds) override {
    ++pings;
    return answers;
  }
  std::optional<nlohmann::json> sample(const std::string& shard, const std::string&, const std::string&,
                                       std::chrono::milliseconds) override {
    if (!answers) return std::nullopt;
    return nlohmann::json{{"shard", shard}, {"keys", 0}};
  }
  void check_external(const std::string& addresses, const std::string&, std::chrono::milliseconds) override {
    if (!answers) throw EnvironmentError(addresses + " does not answer");
  }
  orchestrator::ShutdownOutcome shutdown(const std::vector<std::string>& run_dirs, const std::string&,
                                         bool save) override {
    shutdown_saves.push_back(save);
    orchestrator::ShutdownOutcome outcome;
    // A shard that never came up has no address to send SHUTDOWN to.
    outcome.all_answered = shuts_down && ready_;
    if (outcome.all_answered)
      for (const auto& dir : run_dirs) launcher_.end_now(shard_of_.at(dir).name, 0);
    return outcome;
  }

 private:
  FakeLauncher& launcher_;
  bool ready_ = false;
  std::map<std::string, orchestrator::Shard> shard_of_;
};

}  // namespace ssim::test
