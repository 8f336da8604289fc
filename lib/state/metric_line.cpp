#include "lib/state/metric_line.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string_view>

namespace ssim::state {

namespace {

std::optional<long long> whole_number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (*end != '\0') return std::nullopt;
  return v;
}

std::optional<double> number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (*end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

bool valid_metric_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || !std::isalpha(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-' && c != '/') return false;
  return true;
}

namespace {

// One metric line's words (after the prefix); nullopt when they are not the documented form.
std::optional<std::vector<MetricPoint>> parse_metric_words(std::string_view text, int default_rank) {
  std::vector<std::pair<std::string, double>> values;
  MetricPoint common;
  common.rank = default_rank;
  common.source = "stdout";
  std::istringstream words{std::string(text)};
  std::string word;
  while (words >> word) {
    const size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0) return std::nullopt;  // not the documented form
    const std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    if (key == "step" || key == "epoch" || key == "rank") {
      const auto v = whole_number(value);
      if (!v) return std::nullopt;
      if (key == "step")
        common.step = *v;
      else if (key == "epoch")
        common.epoch = *v;
      else
        common.rank = static_cast<int>(*v);
    } else if (key == "phase") {
      common.phase = value;
    } else {
      const auto v = number(value);
      if (!v || !valid_metric_name(key)) return std::nullopt;
      values.emplace_back(key, *v);
    }
  }
  std::vector<MetricPoint> out;
  for (const auto& [name, v] : values) {
    MetricPoint p = common;
    p.name = name;
    p.value = v;
    out.push_back(std::move(p));
  }
  return out;
}
}  // namespace

std::vector<MetricPoint> parse_metric_stdout(const std::string& raw, int* garbled, int default_rank) {
  std::string_view line = raw;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::vector<MetricPoint> out;
  // Each metric line starts at its prefix and runs to the next one (or the end).
  size_t at = line.find(kMetricLinePrefix);
  while (at != std::string_view::npos) {
    const size_t from = at + kMetricLinePrefix.size();
    const size_t next = line.find(kMetricLinePrefix, from);
    const auto words = line.substr(from, next == std::string_view::npos ? std::string_view::npos : next - from);
    if (auto points = parse_metric_words(words, default_rank))
      out.insert(out.end(), std::make_move_iterator(points->begin()), std::make_move_iterator(points->end()));
    else if (garbled)
      ++*garbled;
    at = next;
  }
  return out;
}

namespace {
// A JSON string of any bytes: quotes, backslashes and control bytes escaped.
std::string json_text(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char code[8];
      std::snprintf(code, sizeof code, "\\u%04x", c);
      out += code;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string number_text(double v) {  // the shortest text that reads back as `v`
  char text[32];
  const auto r = std::to_chars(text, text + sizeof text, v);
  return std::string(text, r.ptr);
}
}  // namespace

std::string encode_metric_json(const MetricPoint& p) {
  std::string line = "{\"name\":" + json_text(p.name) + ",\"value\":" + number_text(p.value);
  if (p.step) line += ",\"step\":" + std::to_string(*p.step);
  if (p.epoch) line += ",\"epoch\":" + std::to_string(*p.epoch);
  if (!p.phase.empty()) line += ",\"phase\":" + json_text(p.phase);
  line += ",\"rank\":" + std::to_string(p.rank);
  if (p.time > 0) line += ",\"time\":" + number_text(p.time);
  if (p.source == "stdout") line += ",\"via\":\"stdout\"";
  return line + "}\n";
}

}  // namespace ssim::state
