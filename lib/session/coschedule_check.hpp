#pragma once
// Streaming needs company: an entity that reads from others while they run (incoming:
// without after:) is useless if they run one after another, which is what packing by
// CPUs does when together they need more than the pool has (a 2-core laptop), or when
// experiment.max_running is smaller than the group. Said before anything starts.
#include <string>
#include <vector>

#include "lib/launch/launcher.hpp"
#include "lib/plan/plan.hpp"

namespace ssim::session {

// One warning per reading entity (or ensemble) that cannot run beside its inputs.
std::vector<std::string> coscheduling_warnings(const plan::Plan& plan, const launch::Launcher& launcher);

// Throws UsageError (exit 2, before anything is written) for an ensemble with
// `gang: true` whose members together can never fit the pool: they would wait for ever.
void check_gangs(const plan::Plan& plan, const launch::Launcher& launcher);

}  // namespace ssim::session
