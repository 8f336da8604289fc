// Building the manifest a run starts from: fresh, or resumed from the previous one.
#include <algorithm>
#include <vector>

#include "lib/engine/engine.hpp"
#include "lib/orchestrator/database.hpp"

namespace ssim::engine {

using state::Status;

namespace {
// The members of an ensemble share one goal, as their steps do: the last one made is
// reused while its steps' goal is alive and the same.
std::shared_ptr<const state::Goal> state_goal(const std::shared_ptr<const spec::Goal>& g) {
  static std::weak_ptr<const spec::Goal> source;
  static std::shared_ptr<const state::Goal> made;
  const bool same = !source.expired() && !source.owner_before(g) && !g.owner_before(source);
  if (!same) {
    source = g;
    made = std::make_shared<const state::Goal>(state::Goal{g->metric, g->at_least, g->target, g->stop});
  }
  return made;
}

// Its rarer fields are made only when there is something to hold (EntityExtra).
void set_waits(state::EntityRecord& r, const std::vector<std::string>& after,
               const std::vector<std::string>& after_any) {
  if (r.extra().after != after) r.extra_mut().after = after;
  if (r.extra().after_any != after_any) r.extra_mut().after_any = after_any;
}

state::EntityRecord record_for(const plan::Step& s) {
  state::EntityRecord r;
  r.name = s.name;
  r.type = s.kind == plan::StepKind::Member ? state::EntityKind::Member : state::EntityKind::Model;
  r.ensemble = s.ensemble;
  r.run_dir = s.run_dir;
  set_waits(r, s.after, s.after_any);
  for (const auto& [name, value] : s.parameters) r.extra_mut().params[name] = value;
  if (s.program->goal) r.goal = state_goal(s.program->goal);
  r.setup = !s.program->setup.empty() || s.program->batch != nullptr;  // a batch job's settings may add setup lines
  return r;
}
}  // namespace

state::Manifest new_manifest(const plan::Plan& plan, const std::string& id) {
  state::Manifest m;
  m.experiment = plan.name;
  m.id = id;
  m.file = plan.file;
  m.path = plan.path;
  m.launcher = plan.launcher;
  if (plan.database) {
    for (const auto& shard : orchestrator::shards_of(*plan.database)) {
      state::EntityRecord r;
      r.name = shard.name;
      r.type = state::EntityKind::Database;
      r.run_dir = shard.run_dir;
      r.setup = !plan.setup.empty() || plan.database->batch.has_value();
      m.entities.push_back(r);
    }
  }
  m.entities.reserve(m.entities.size() + plan.steps.size());
  for (const auto& s : plan.steps) m.entities.push_back(record_for(s));
  return m;
}

bool reusable_database(const plan::Plan& plan, const state::Manifest& previous) {
  if (!plan.database || !plan.database->persist || plan.database->external()) return false;
  const auto shards = orchestrator::shards_of(*plan.database);
  size_t running = 0;
  for (const auto& r : previous.entities) {
    if (r.type != state::EntityKind::Database) continue;
    const bool planned = std::any_of(shards.begin(), shards.end(), [&](const auto& s) { return s.name == r.name; });
    if (!planned || r.status != Status::Running) return false;
    ++running;
  }
  return running == shards.size();
}

state::Manifest resume_manifest(const plan::Plan& plan, const state::Manifest& previous) {
  state::Manifest m = new_manifest(plan, previous.id);
  m.created = previous.created;
  const bool reuse_database = reusable_database(plan, previous);
  // Which entities run again, by place in m (a set of a million names, and a map of the
  // steps by name, were a tenth of a resume's peak memory).
  std::vector<bool> rerun(m.entities.size());
  const auto place = [&m](const state::EntityRecord& r) { return static_cast<size_t>(&r - m.entities.data()); };
  for (auto& r : m.entities) {
    const state::EntityRecord* old = previous.find(r.name);  // indexed: a million members resume in one pass
    // A database left running by persist: true is reused as it is.
    if (old && r.type == state::EntityKind::Database && reuse_database) {
      r = *old;
      continue;
    }
    // Otherwise the database starts again (from its snapshot); entities keep a clean success.
    if (old && r.type != state::EntityKind::Database && old->status == Status::Completed && old->exit_code == 0) {
      const auto after = r.extra().after;
      const auto after_any = r.extra().after_any;
      r = *old;
      set_waits(r, after, after_any);
    } else {
      if (old) {
        r.attempt = old->attempt;
        if (!old->extra().earlier_attempts.empty()) r.extra_mut().earlier_attempts = old->extra().earlier_attempts;
        if (old->attempt > 0 && r.type != state::EntityKind::Database)
          r.extra_mut().earlier_attempts.push_back(state::attempt_record(*old));
      }
      rerun[place(r)] = true;
    }
  }
  // What waits on a rerun entity runs again too, even if it had completed: passes until
  // none is added (as many as the longest chain of waits).
  // m holds the database's shards, then the plan's steps in order (new_manifest above).
  const size_t shards = m.entities.size() - plan.steps.size();
  const auto step_of = [&](const state::EntityRecord& r) -> const plan::Step& { return plan.steps[place(r) - shards]; };
  const auto waits_on_rerun = [&](const state::EntityRecord& r) {
    const auto rerun_name = [&](const std::string& a) {
      const state::EntityRecord* e = m.find(a);
      return e && rerun[place(*e)];
    };
    return std::any_of(r.extra().after.begin(), r.extra().after.end(), rerun_name) ||
           std::any_of(r.extra().after_any.begin(), r.extra().after_any.end(), rerun_name);
  };
  for (bool grew = true; grew;) {
    grew = false;
    for (auto& r : m.entities) {
      if (rerun[place(r)] || !waits_on_rerun(r)) continue;
      const auto after = r.extra().after;
      const auto after_any = r.extra().after_any;
      const int attempt = r.attempt;
      auto earlier = r.extra().earlier_attempts;
      if (attempt > 0) earlier.push_back(state::attempt_record(r));
      r = record_for(step_of(r));
      set_waits(r, after, after_any);
      r.attempt = attempt;
      if (!earlier.empty()) r.extra_mut().earlier_attempts = std::move(earlier);
      rerun[place(r)] = true;
      grew = true;
    }
  }
  return m;
}

}  // namespace ssim::engine
