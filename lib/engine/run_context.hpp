#pragma once
// What a phase of a run (engine.hpp) may read and do: the manifest, the plan's steps by
// name, the clock, where it says things, and ending an entity's job. The engine makes one
// for its phases; their unit tests give lambdas and a manifest, no launcher.
#include <functional>
#include <string>
#include <string_view>

#include <spdlog/logger.h>

#include "lib/engine/event.hpp"
#include "lib/plan/plan.hpp"
#include "lib/state/manifest.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/name_table.hpp"

namespace ssim::engine {

// The plan's steps by name, each name read from its step (the plans outlive the run): a
// map of a million copied names took 80 MB, this table 16 MB.
class StepsByName {
 public:
  void add(const plan::Step& s) { table_.insert(s.name, &s, name_of); }  // a later step of a name wins
  const plan::Step* find(std::string_view name) const {
    const plan::Step* s = nullptr;
    return table_.find(name, name_of, s) == NameTable<const plan::Step*>::Found::Yes ? s : nullptr;
  }

 private:
  static std::string_view name_of(const plan::Step* s) { return s->name; }
  NameTable<const plan::Step*> table_;
};

struct RunContext {
  state::Manifest& m;
  const StepsByName& steps;
  const Clock& clock;
  spdlog::logger& log;
  std::function<void(const Event&)> emit;                // to events.ndjson and the display
  std::function<void(const state::EntityRecord&)> stop;  // ends the entity's job (not forced)
  bool dirty = false;                                    // the manifest changed: the loop saves soon

  // The step of entity `name`; nullptr for a database shard or the outer batch job.
  const plan::Step* step(const std::string& name) const { return steps.find(name); }
};

}  // namespace ssim::engine
