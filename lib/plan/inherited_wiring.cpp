#include "lib/plan/inherited_wiring.hpp"

#include <algorithm>

namespace ssim::plan {

namespace {
constexpr const char* kWiring[] = {"RANK",        "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE",
                                   "MASTER_ADDR", "MASTER_PORT"};

bool own_env_sets(const Step& s, const std::string& name) {
  if (!s.shared_env) return false;
  const auto& env = s.shared_env->from_file;
  return std::any_of(env.begin(), env.end(), [&](const auto& kv) { return kv.first == name; });
}
}  // namespace

std::vector<std::string> replaced_wiring(const Plan& p, const std::function<const char*(const char*)>& getenv) {
  std::vector<std::string> names;
  for (const char* name : kWiring) {
    const char* v = getenv(name);
    if (!v) continue;
    for (const auto& s : p.steps)
      if (s.program->res.rank_env && !own_env_sets(s, name)) {
        names.emplace_back(name);
        break;
      }
  }
  return names;
}

std::string replaced_wiring_notice(const std::vector<std::string>& names) {
  if (names.empty()) return "";
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  return "this shell's " + list + (names.size() == 1 ? " is" : " are") +
         " replaced by ssim's rank wiring in every entity (an entity's env: sets its own; run: {rank_env: "
         "false} keeps the shell's)";
}

}  // namespace ssim::plan
