#include "lib/session/coschedule_check.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "lib/engine/schedule.hpp"
#include "lib/launch/node_pool.hpp"
#include "lib/util/errors.hpp"

namespace ssim::session {

std::vector<std::string> coscheduling_warnings(const plan::Plan& plan, const launch::Launcher& launcher) {
  int total = 0;
  for (const auto& n : launcher.pool(plan)) total += n.cpus;
  std::map<std::string, const plan::Step*> by_name;
  for (const auto& s : plan.steps) by_name[s.name] = &s;
  std::vector<std::string> out;
  std::set<std::string> said;
  for (const auto& s : plan.steps) {
    if (s.program->incoming.empty()) continue;
    const std::string who = s.ensemble.empty() ? s.name : s.ensemble;
    if (said.count(who)) continue;
    // Its inputs that run beside it: those it does not wait for.
    std::vector<const plan::Step*> group = {&s};
    for (const auto& n : s.program->incoming) {
      const bool waits = std::find(s.after.begin(), s.after.end(), n) != s.after.end() ||
                         std::find(s.after_any.begin(), s.after_any.end(), n) != s.after_any.end();
      if (!waits && by_name.count(n)) group.push_back(by_name.at(n));
    }
    if (group.size() < 2) continue;
    std::vector<std::string> names;  // ensembles by their name, not each member's
    for (const auto& n : s.program->incoming) {
      const std::string shown = by_name.count(n) && !by_name.at(n)->ensemble.empty() ? by_name.at(n)->ensemble : n;
      if (std::find(names.begin(), names.end(), shown) == names.end()) names.push_back(shown);
    }
    std::string inputs;
    for (const auto& n : names) inputs += (inputs.empty() ? "" : ", ") + n;
    int need = 0;
    for (const auto* g : group)
      if (launcher.packs(*g)) need += std::max(1, g->program->res.ntasks) * launch::cpus_per_task(g->program->res);
    std::string why;
    if (plan.max_running > 0 && static_cast<int>(group.size()) > plan.max_running)
      why = "experiment.max_running is " + std::to_string(plan.max_running) + " and they are " +
            std::to_string(group.size());
    else if (total > 0 && need > total)
      why = "together they need " + std::to_string(need) + " CPUs and " +
            (launcher.runs_here() ? "this machine has " : "the allocation has ") + std::to_string(total);
    if (why.empty()) continue;
    said.insert(who);
    out.push_back(who + " reads from " + inputs + " (incoming:) while they run, but " + why +
                  ": they would run one after another and " + who + " would wait for data that is already " +
                  "there or never comes. Set experiment.oversubscribe: true (local), ask fewer CPUs "
                  "(run.cpus_per_task, run.ntasks), raise max_running, or use more nodes");
  }
  return out;
}

void check_gangs(const plan::Plan& plan, const launch::Launcher& launcher) {
  bool any = false;
  for (const auto& s : plan.steps) any = any || s.program->gang;
  if (!any) return;
  engine::Schedule schedule;  // the engine's own rules, on the pool the run would have
  bool packs = false;
  for (const auto& s : plan.steps) packs = packs || launcher.packs(s);
  if (packs && !plan.oversubscribe) schedule.set_pool(launch::NodePool(launcher.pool(plan)));
  for (const auto& s : plan.steps) schedule.add_step(s, launcher.packs(s));
  const auto refused = schedule.gangs_that_never_fit(plan.max_running);
  if (!refused.empty()) throw UsageError(refused.front());
}

}  // namespace ssim::session
