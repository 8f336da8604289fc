#include "lib/engine/event.hpp"

#include <cstdio>

#include "lib/util/clock.hpp"

namespace ssim::engine {

std::string to_string(EventKind k) {
  switch (k) {
    case EventKind::Entity:
      return "entity";
    case EventKind::DatabaseReady:
      return "database_ready";
    case EventKind::Warning:
      return "warning";
    case EventKind::Error:
      return "error";
    case EventKind::Info:
      return "info";
    case EventKind::Finished:
      return "finished";
  }
  return "info";
}

std::string to_text(const Event& e) {
  switch (e.kind) {
    case EventKind::Entity: {
      if (e.status == state::Status::New) return e.entity + " " + e.detail;  // waiting again: "retrying in 1 s ..."
      std::string line = e.entity + " " + state::to_string(*e.status);
      if (!e.detail.empty() && e.status != state::Status::Completed) line += ": " + e.detail;
      return line + e.hint;
    }
    case EventKind::DatabaseReady:
      return (e.reused ? "reusing the database left running at " : "database ready at ") + e.detail + " (" +
             std::to_string(static_cast<int>(e.millis)) + " ms)";
    case EventKind::Warning:
      return "warning: " + e.text;
    case EventKind::Error:
      return "ERROR: " + e.text;
    case EventKind::Info:
      return e.text;
    case EventKind::Finished: {
      std::string line;
      for (state::Status s : state::kSummaryOrder) {
        const auto it = e.counts.find(s);
        if (it != e.counts.end() && it->second > 0)
          line += (line.empty() ? "" : ", ") + std::to_string(it->second) + " " + state::to_string(s);
      }
      char time[32];
      std::snprintf(time, sizeof time, "%.1f s", e.seconds);
      return (line.empty() ? "nothing ran" : line) + " in " + time;
    }
  }
  return e.text;
}

nlohmann::json to_json(const Event& e) {
  nlohmann::json j = {{"event", to_string(e.kind)}, {"time", e.time}};
  switch (e.kind) {
    case EventKind::Entity:
      j["entity"] = e.entity;
      j["type"] = e.entity_type;
      j["status"] = state::to_string(*e.status);
      j["exit_code"] = e.exit_code ? nlohmann::json(*e.exit_code) : nlohmann::json();
      j["reason"] = e.detail;
      if (!e.hint.empty()) j["hint"] = e.hint;
      break;
    case EventKind::DatabaseReady:
      j["address"] = e.detail;
      j["ms"] = e.millis;
      j["reused"] = e.reused;
      break;
    case EventKind::Finished: {
      j["exit_code"] = e.exit_code ? *e.exit_code : 0;
      j["seconds"] = e.seconds;
      nlohmann::json c = nlohmann::json::object();
      for (const auto& [s, n] : e.counts) c[state::to_string(s)] = n;
      j["counts"] = c;
      break;
    }
    default:
      j["text"] = e.text;
  }
  j["message"] = to_text(e);
  return j;
}

Event entity_event(const std::string& name, const std::string& type, state::Status status, std::optional<int> exit_code,
                   const std::string& reason, const std::string& hint) {
  Event e;
  e.kind = EventKind::Entity;
  e.time = now_seconds();
  e.entity = name;
  e.entity_type = type;
  e.status = status;
  e.exit_code = exit_code;
  e.detail = reason;
  e.hint = hint;
  return e;
}

Event text_event(EventKind kind, const std::string& text) {
  Event e;
  e.kind = kind;
  e.time = now_seconds();
  e.text = text;
  return e;
}

}  // namespace ssim::engine
