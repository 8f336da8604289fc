#pragma once
#include <string>

#include "lib/state/manifest.hpp"

namespace ssim::engine {

// What to append to "NAME failed: ..." so a person knows where to look: the last line
// of its stderr and the command that shows the rest, e.g.
//   ` | ValueError: bad input  (ssim logs runs/x NAME --stderr)`.
std::string failure_pointer(const state::EntityRecord& r, const std::string& experiment_path);

}  // namespace ssim::engine
