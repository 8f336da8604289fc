#pragma once
// What a phase of a run (engine.hpp) may read and do: the manifest, the plan's steps by
// name, the clock, where it says things, and ending an entity's job. The engine makes one
// for its phases; their unit tests give lambdas and a manifest, no launcher.
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include <spdlog/logger.h>

#include "lib/engine/event.hpp"
#include "lib/plan/plan.hpp"
#include "lib/state/manifest.hpp"
#include "lib/util/clock.hpp"

namespace ssim::engine {

// The plan's steps by name. A key views its step's own name: the plans outlive the run,
// and a map of a million names held a million copies.
using StepsByName = std::unordered_map<std::string_view, const plan::Step*>;

struct RunContext {
  state::Manifest& m;
  const StepsByName& steps;
  const Clock& clock;
  spdlog::logger& log;
  std::function<void(const Event&)> emit;                // to events.ndjson and the display
  std::function<void(const state::EntityRecord&)> stop;  // ends the entity's job (not forced)
  bool dirty = false;                                    // the manifest changed: the loop saves soon

  // The step of entity `name`; nullptr for a database shard or the outer batch job.
  const plan::Step* step(const std::string& name) const {
    const auto it = steps.find(name);
    return it == steps.end() ? nullptr : it->second;
  }
};

}  // namespace ssim::engine
