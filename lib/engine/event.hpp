#pragma once
// What happened during a run, as data: the engine emits typed events; the terminal
// line, the plain stderr lines, `ssim run --events` (NDJSON) and .ssim/events.ndjson
// are renderers of the same events.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "lib/state/status.hpp"

namespace ssim::engine {

enum class EventKind {
  Entity,         // an entity changed status: entity, status, exit_code, detail (the reason), hint
  DatabaseReady,  // detail: the address (SSDB); millis: how long it took; reused: left running before
  Warning,        // text
  Error,          // text
  Info,           // text (database left running, answers again, ...)
  Finished,       // the run ended: exit_code, counts, seconds
};

struct Event {
  EventKind kind = EventKind::Info;
  double time = 0;  // epoch seconds
  std::string entity;
  std::string entity_type;
  std::optional<state::Status> status;
  std::optional<int> exit_code;
  std::string detail;
  std::string hint;  // a failure: its last stderr line and the command that shows the rest
  std::string text;  // Warning / Error / Info
  double millis = 0;
  bool reused = false;
  std::map<state::Status, int> counts;  // Finished
  double seconds = 0;                   // Finished
};

std::string to_string(EventKind k);  // "entity", "database_ready", "warning", ...
// The line a person reads: "up_3 failed: exit code 3 | ValueError...  (ssim logs ...)".
std::string to_text(const Event& e);
// One NDJSON object: {"event": "entity", "time": ..., "entity": "up_3", "status": "failed", ...}.
nlohmann::json to_json(const Event& e);

// Builders for the engine's call sites.
Event entity_event(const std::string& name, const std::string& type, state::Status status, std::optional<int> exit_code,
                   const std::string& reason, const std::string& hint = "");
Event text_event(EventKind kind, const std::string& text);

}  // namespace ssim::engine
