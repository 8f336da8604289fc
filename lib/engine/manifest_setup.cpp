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

namespace {
state::Manifest manifest_header(const plan::Plan& plan, const std::string& id) {
  state::Manifest m;
  m.experiment = plan.name;
  m.id = id;
  m.file = plan.file;
  m.path = plan.path;
  m.launcher = plan.launcher;
  return m;
}

state::EntityRecord shard_record(const plan::Plan& plan, const orchestrator::Shard& shard) {
  state::EntityRecord r;
  r.name = shard.name;
  r.type = state::EntityKind::Database;
  r.run_dir = shard.run_dir;
  r.setup = !plan.setup.empty() || plan.database->batch.has_value();
  return r;
}

std::vector<orchestrator::Shard> shards_in(const plan::Plan& plan) {
  return plan.database ? orchestrator::shards_of(*plan.database) : std::vector<orchestrator::Shard>{};
}
}  // namespace

state::Manifest new_manifest(const plan::Plan& plan, const std::string& id) {
  state::Manifest m = manifest_header(plan, id);
  const auto shards = shards_in(plan);
  m.entities.reserve(shards.size() + plan.steps.size());
  for (const auto& shard : shards) m.entities.push_back(shard_record(plan, shard));
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

namespace {
// Whether the previous run's records are the plan's entities in the plan's order (the
// file unchanged): then the resumed manifest is made in their place.
bool same_entities(const plan::Plan& plan, const std::vector<orchestrator::Shard>& shards,
                   const state::Manifest& previous) {
  if (previous.entities.size() != shards.size() + plan.steps.size()) return false;
  for (size_t i = 0; i < shards.size(); ++i)
    if (previous.entities[i].name != shards[i].name) return false;
  for (size_t i = 0; i < plan.steps.size(); ++i)
    if (previous.entities[shards.size() + i].name != plan.steps[i].name) return false;
  return true;
}

// `r`, as the plan makes it, resumed from `old` (its previous record, taken when `take`):
// whether it runs again.
bool resume_record(state::EntityRecord& r, state::EntityRecord* old, bool reuse_database, bool take) {
  const auto keep_old = [&] {
    if (take)
      r = std::move(*old);
    else
      r = *old;
  };
  // A database left running by persist: true is reused as it is.
  if (old && r.type == state::EntityKind::Database && reuse_database) {
    keep_old();
    return false;
  }
  // Otherwise the database starts again (from its snapshot); entities keep a clean success.
  if (old && r.type != state::EntityKind::Database && old->status == Status::Completed && old->exit_code == 0) {
    auto after = r.extra().after;
    auto after_any = r.extra().after_any;
    keep_old();
    set_waits(r, after, after_any);
    return false;
  }
  if (old) {
    r.attempt = old->attempt;
    if (!old->extra().earlier_attempts.empty()) r.extra_mut().earlier_attempts = old->extra().earlier_attempts;
    if (old->attempt > 0 && r.type != state::EntityKind::Database)
      r.extra_mut().earlier_attempts.push_back(state::attempt_record(*old));
  }
  return true;
}
}  // namespace

state::Manifest resume_manifest(const plan::Plan& plan, state::Manifest&& previous) {
  const bool reuse_database = reusable_database(plan, previous);
  const auto shards = shards_in(plan);
  state::Manifest m = manifest_header(plan, previous.id);
  m.created = previous.created;
  std::vector<bool> rerun;  // which entities run again, by place in m
  const auto planned = [&](size_t i) {
    return i < shards.size() ? shard_record(plan, shards[i]) : record_for(plan.steps[i - shards.size()]);
  };
  if (same_entities(plan, shards, previous)) {
    // In place: a million records are not held twice (the previous run's and these).
    m.entities = std::move(previous.entities);
    rerun.resize(m.entities.size());
    for (size_t i = 0; i < m.entities.size(); ++i) {
      state::EntityRecord old = std::move(m.entities[i]);
      m.entities[i] = planned(i);
      rerun[i] = resume_record(m.entities[i], &old, reuse_database, true);
    }
  } else {
    // Entities added, removed or reordered: each found by name (the index: one pass).
    m.entities.reserve(shards.size() + plan.steps.size());
    for (size_t i = 0; i < shards.size() + plan.steps.size(); ++i) m.entities.push_back(planned(i));
    rerun.resize(m.entities.size());
    for (size_t i = 0; i < m.entities.size(); ++i)
      rerun[i] = resume_record(m.entities[i], previous.find(m.entities[i].name), reuse_database, false);
  }
  const auto place = [&m](const state::EntityRecord& r) { return static_cast<size_t>(&r - m.entities.data()); };
  // What waits on a rerun entity runs again too, even if it had completed: passes until
  // none is added (as many as the longest chain of waits).
  // m holds the database's shards, then the plan's steps in order (new_manifest above).
  const auto step_of = [&](const state::EntityRecord& r) -> const plan::Step& {
    return plan.steps[place(r) - shards.size()];
  };
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
