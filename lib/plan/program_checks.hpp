#pragma once
// Programs that cannot start, found before anything starts: an entity whose `exe` is
// not on the PATH (or not an executable file) would otherwise fail with 127 once per
// member, after the database and every earlier entity had started.
#include "lib/plan/plan.hpp"
#include "lib/spec/spec.hpp"

namespace ssim::plan {

// Throws SpecError (file:line:col of the first entity's exe) for a program that cannot
// be found. Only where the answer here is the answer where it runs: the local launcher,
// no setup lines (a `module load` may provide it), no `after:` for a path (an earlier
// step may build it), no copied or linked file of that name. PATH is the entity's own
// env PATH when it sets one, else this process's.
// Also: an `inference:` that is on where this ssim has no inference service (ssim-infer,
// beside ssim and its supervisor wherever they run), with the way to get it.
void check_programs(const spec::ExperimentSpec& spec, const Plan& plan);

}  // namespace ssim::plan
