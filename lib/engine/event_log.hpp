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

// The same for a whole run, with the file kept open between events (an open, a stat and
// a close per event were a twentieth of a large ensemble's engine).
class EventLog {
 public:
  explicit EventLog(std::string experiment_path) : path_(events_path(experiment_path)) {}
  ~EventLog();
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;
  void append(const Event& e);

 private:
  std::string path_;
  int fd_ = -1;
  long long size_ = 0;
  bool opened_ = false;  // tried: a log that cannot be opened is not tried again
};

}  // namespace ssim::engine
