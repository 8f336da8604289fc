#pragma once
#include <memory>
#include <ostream>

#include "lib/engine/progress.hpp"

namespace ssim::app {

// A live one-line display on a terminal (counts by status, newest events above it),
// or plain lines when stderr is not a terminal.
std::unique_ptr<engine::Progress> make_progress(bool terminal);

}  // namespace ssim::app
