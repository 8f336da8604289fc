#pragma once
// <path>/.ssim/events.ndjson: every event of every run of the experiment, one JSON
// object per line (event.hpp's to_json), appended as they happen; --resume adds to it.
#include <string>

#include "lib/engine/event.hpp"

namespace ssim::engine {

std::string events_path(const std::string& experiment_path);
// Appends one line (one write, O_APPEND). Never fails the run: a full disk or a file
// past 64 MiB only stops the log.
void append_event(const std::string& experiment_path, const Event& e);

}  // namespace ssim::engine
