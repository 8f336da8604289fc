#include "lib/state/status_file.hpp"

#include <cstdio>

#include <nlohmann/json.hpp>

namespace ssim::state {

std::string status_json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      out += b;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

namespace {
std::string status_seconds(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6f", v);
  return b;
}

std::string status_int_or_null(const std::optional<int>& v) { return v ? std::to_string(*v) : "null"; }
}  // namespace

std::string status_file_path(const std::string& run_dir) { return run_dir + "/.ssim-status.json"; }

std::string cancel_marker_path(const std::string& run_dir) { return run_dir + "/.ssim-cancelled"; }

std::string encode_status_file(const StatusFile& s) {
  std::string out =
      "{\"format\":" + std::to_string(s.version) + ",\"state\":" + (s.exited ? "\"exited\"" : "\"running\"");
  out += ",\"start\":" + status_seconds(s.start);
  if (s.end > 0) out += ",\"end\":" + status_seconds(s.end);
  if (s.pid) out += ",\"pid\":" + std::to_string(s.pid);
  if (!s.pid_start_ticks.empty()) out += ",\"pid_start_ticks\":" + status_json_string(s.pid_start_ticks);
  if (s.supervisor_pid) {
    out += ",\"supervisor_pid\":" + std::to_string(s.supervisor_pid);
    out += ",\"supervisor_start_ticks\":" + status_json_string(s.supervisor_start_ticks);
  }
  if (!s.node.empty()) out += ",\"node\":" + status_json_string(s.node);
  if (!s.host.empty()) out += ",\"host\":" + status_json_string(s.host);
  if (s.exited)
    out += ",\"exit_code\":" + status_int_or_null(s.exit_code) + ",\"signal\":" + status_int_or_null(s.signal);
  if (!s.error.empty()) out += ",\"error\":" + status_json_string(s.error);
  if (s.time_limit_reached) out += ",\"time_limit_reached\":true";
  if (!s.recovered_by.empty()) out += ",\"recovered_by\":" + status_json_string(s.recovered_by);
  if (s.agent_lost) out += ",\"agent_lost\":true";
  return out + "}\n";
}

std::optional<StatusFile> decode_status_file(const std::string& text) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  StatusFile s;
  auto text_of = [&](const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  auto number_of = [&](const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
  };
  auto int_of = [&](const char* key) -> std::optional<int> {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer()) return std::nullopt;
    return it->get<int>();
  };
  s.version = int_of("format").value_or(0);
  s.exited = text_of("state") == "exited";
  s.start = number_of("start");
  s.end = number_of("end");
  s.pid = int_of("pid").value_or(0);
  s.pid_start_ticks = text_of("pid_start_ticks");
  s.supervisor_pid = int_of("supervisor_pid").value_or(0);
  s.supervisor_start_ticks = text_of("supervisor_start_ticks");
  s.node = text_of("node");
  s.host = text_of("host");
  s.exit_code = int_of("exit_code");
  s.signal = int_of("signal");
  s.error = text_of("error");
  const auto limit = j.find("time_limit_reached");
  s.time_limit_reached = limit != j.end() && limit->is_boolean() && limit->get<bool>();
  s.recovered_by = text_of("recovered_by");
  const auto lost = j.find("agent_lost");
  s.agent_lost = lost != j.end() && lost->is_boolean() && lost->get<bool>();
  return s;
}

}  // namespace ssim::state
