#include "lib/plan/exposure.hpp"

namespace ssim::plan {

std::vector<std::string> exposure_warnings(const Plan& plan) {
  std::vector<std::string> out;
  if (!plan.database || plan.database->external() || plan.database->password) return out;
  const Database& db = *plan.database;
  const std::string where =
      db.interface.empty() ? "every address of the node it runs on" : "the addresses of interface " + db.interface;
  out.push_back("ssim: warning: orchestrator.password: none: the database answers without a password on port " +
                std::to_string(db.port) +
                (db.shards > 1 ? " (and the next " + std::to_string(db.shards - 1) + ")" : "") + " of " + where +
                ": every user of that node, and anyone who can reach it over the network, can read, change and delete "
                "the experiment's data. SmartRedis programs need no open door: leave the password on and say "
                "smartredis: true (docs/coming-from-smartsim.md)");
  return out;
}

}  // namespace ssim::plan
