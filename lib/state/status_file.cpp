#include "lib/state/status_file.hpp"

#include <cstdint>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "lib/state/quick_json.hpp"

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

namespace {
using json = nlohmann::json;

// A status object's fields, as the parser meets them; anything but scalars at the top
// (an object, an array: not a status file's) stops it.
class StatusFileEvents : public nlohmann::json_sax<json> {
 public:
  explicit StatusFileEvents(StatusFile& s) : s_(s) {}
  bool null() override { return depth_ == 1; }
  bool boolean(bool v) override {
    if (key_ == "time_limit_reached") s_.time_limit_reached = v;
    if (key_ == "agent_lost") s_.agent_lost = v;
    return depth_ == 1;
  }
  bool number_integer(number_integer_t v) override { return integer(v); }
  bool number_unsigned(number_unsigned_t v) override {
    return v <= static_cast<number_unsigned_t>(INT64_MAX) && integer(static_cast<number_integer_t>(v));
  }
  bool number_float(number_float_t v, const string_t&) override {
    if (key_ == "start") s_.start = v;
    if (key_ == "end") s_.end = v;
    return depth_ == 1;
  }
  bool string(string_t& v) override {
    if (std::string* field = text_field()) *field = std::move(v);
    if (key_ == "state") s_.exited = v == "exited";
    return depth_ == 1;
  }
  bool binary(binary_t&) override { return false; }
  bool start_object(std::size_t) override { return ++depth_ == 1; }
  bool end_object() override { return --depth_ == 0; }
  bool start_array(std::size_t) override { return false; }
  bool end_array() override { return false; }
  bool key(string_t& k) override {
    key_ = std::move(k);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  bool integer(number_integer_t v) {
    const bool fits = v >= INT32_MIN && v <= INT32_MAX;
    const int i = static_cast<int>(v);
    if (key_ == "format" && fits) s_.version = i;
    if (key_ == "pid" && fits) s_.pid = i;
    if (key_ == "supervisor_pid" && fits) s_.supervisor_pid = i;
    if (key_ == "exit_code" && fits) s_.exit_code = i;
    if (key_ == "signal" && fits) s_.signal = i;
    if (key_ == "start") s_.start = static_cast<double>(v);
    if (key_ == "end") s_.end = static_cast<double>(v);
    return depth_ == 1;
  }
  std::string* text_field() {
    if (key_ == "pid_start_ticks") return &s_.pid_start_ticks;
    if (key_ == "supervisor_start_ticks") return &s_.supervisor_start_ticks;
    if (key_ == "node") return &s_.node;
    if (key_ == "host") return &s_.host;
    if (key_ == "error") return &s_.error;
    if (key_ == "recovered_by") return &s_.recovered_by;
    return nullptr;
  }
  StatusFile& s_;
  int depth_ = 0;
  std::string key_;
};

StatusFile blank_status() {
  StatusFile s;
  s.version = 0;  // a text without "format" is an older ssim's
  return s;
}
}  // namespace

std::optional<StatusFile> decode_status_file(std::string_view text) {
  // The quick reader first (quick_json.hpp): a keeper's record is read for every member
  // a reader has not seen end, a million of them in a large ensemble.
  StatusFile quick = blank_status();
  StatusFileEvents events(quick);
  if (quick_sax_parse(text, events)) return quick;
  const auto j = json::parse(text, nullptr, false);
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
