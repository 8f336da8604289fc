#pragma once
#include <memory>
#include <ostream>

#include "lib/engine/progress.hpp"

namespace ssim::app {

// A live one-line display on a terminal (the clock and counts by status, newest events
// above it, failures in red unless NO_COLOR is set), or plain lines when stderr is not
// a terminal. With `events`, every event also goes to stdout as one JSON line.
std::unique_ptr<engine::Progress> make_progress(bool terminal, bool events = false);

}  // namespace ssim::app
