#pragma once
// smartredis: true needs ssim-door beside ssim-supervise, where the member's command line
// starts it from (task_program): refused before anything starts when it is not there.
#include "lib/spec/spec.hpp"

namespace ssim::launch {

// Throws spec::SpecError at the first smartredis: true (FILE:LINE:COL) when the door is
// missing; nothing when no entity asks for it or the supervisor itself is missing (that
// is said on its own).
void check_smartredis_door(const spec::ExperimentSpec& spec);

}  // namespace ssim::launch
