#include "lib/state/metrics.hpp"

#include <string_view>

#include <charconv>

#include <algorithm>
#include <cstdio>

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <cstdlib>
#include <sstream>

#include <nlohmann/json.hpp>

#include "lib/util/atomic_file.hpp"
#include "lib/util/file_tail.hpp"
#include "lib/util/utf8.hpp"
#include "lib/state/stdout_stamps.hpp"

namespace ssim::state {

namespace {

void read_lines(const std::string& path, const std::function<void(const std::string&)>& each) {
  const auto text = read_run_file(path);  // a program's files: no link, FIFO or stranger's file
  if (!text) return;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) each(line);
}

}  // namespace

namespace {
// The lines ssim's clients write are flat objects of plain strings and numbers. They are
// read here without building a JSON document (5 million points: seconds less); what this
// reader does not know for sure (escapes, nesting, true/false/null, odd numbers) is left
// to the full parser, so both give the same answer.
enum class Fast { Point, Rejected, Unsure };

// A JSON number exactly as the grammar has it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
bool json_number(const char*& c, const char* end, bool& integer) {
  auto digits = [&] {
    const char* s = c;
    while (c < end && std::isdigit(static_cast<unsigned char>(*c))) ++c;
    return c > s;
  };
  integer = true;
  if (c < end && *c == '-') ++c;
  if (c < end && *c == '0') {
    ++c;
  } else if (!digits()) {
    return false;
  }
  if (c < end && *c == '.') {
    ++c, integer = false;
    if (!digits()) return false;
  }
  if (c < end && (*c == 'e' || *c == 'E')) {
    ++c, integer = false;
    if (c < end && (*c == '+' || *c == '-')) ++c;
    if (!digits()) return false;
  }
  return true;
}

Fast parse_flat_point(const std::string& line, MetricPoint& p) {
  const char* c = line.data();
  const char* end = c + line.size();
  auto skip = [&] {
    while (c < end && (*c == ' ' || *c == '\t' || *c == '\r' || *c == '\n')) ++c;
  };
  auto string = [&](std::string_view& out) {  // plain ASCII without escapes, else unsure
    if (c >= end || *c != '"') return false;
    const char* start = ++c;
    while (c < end && *c != '"') {
      const auto u = static_cast<unsigned char>(*c);
      if (*c == '\\' || u < 0x20 || u >= 0x80) return false;
      ++c;
    }
    if (c >= end) return false;
    out = std::string_view(start, static_cast<size_t>(c - start));
    ++c;
    return true;
  };
  // Each field as the full parser would leave it: the last occurrence of a key wins.
  bool name_ok = false, value_ok = false, via_stdout = false;
  skip();
  if (c >= end || *c++ != '{') return Fast::Unsure;
  skip();
  if (c < end && *c == '}') {
    ++c;
  } else {
    while (true) {
      std::string_view key;
      skip();
      if (!string(key)) return Fast::Unsure;
      skip();
      if (c >= end || *c++ != ':') return Fast::Unsure;
      skip();
      if (c < end && *c == '"') {
        std::string_view text;
        if (!string(text)) return Fast::Unsure;
        if (key == "name")
          p.name = text, name_ok = true;
        else if (key == "phase")
          p.phase = text;
        else if (key == "value")
          value_ok = false;
        else if (key == "step")
          p.step.reset();
        else if (key == "epoch")
          p.epoch.reset();
        else if (key == "rank")
          p.rank = 0;
        else if (key == "time")
          p.time = 0;
        else if (key == "via")
          via_stdout = text == "stdout";
      } else {
        const char* start = c;
        bool integer = true;
        if (!json_number(c, end, integer)) return Fast::Unsure;  // true, false, null, objects, lists
        const char* stop = c;
        double d = 0;
        if (const auto r = std::from_chars(start, stop, d); r.ptr != stop || r.ec != std::errc{}) return Fast::Unsure;
        long long n = 0;  // beyond 64 bits (or a double out of range): the full parser's rules
        if (const auto r = std::from_chars(start, stop, n); integer && (r.ptr != stop || r.ec != std::errc{}))
          return Fast::Unsure;
        if (key == "value")
          p.value = d, value_ok = true;
        else if (key == "time")
          p.time = d;
        else if (key == "name")
          name_ok = false;
        else if (key == "phase")
          p.phase.clear();
        else if (key == "step")
          integer ? void(p.step = n) : p.step.reset();
        else if (key == "epoch")
          integer ? void(p.epoch = n) : p.epoch.reset();
        else if (key == "rank")
          p.rank = integer ? static_cast<int>(n) : 0;
        else if (key == "via")
          via_stdout = false;
      }
      skip();
      if (c < end && *c == ',') {
        ++c;
        continue;
      }
      if (c < end && *c == '}') {
        ++c;
        break;
      }
      return Fast::Unsure;
    }
  }
  skip();
  if (c != end) return Fast::Unsure;
  if (!name_ok || !value_ok || !valid_metric_name(p.name) || !std::isfinite(p.value)) return Fast::Rejected;
  p.source = via_stdout ? "stdout" : "client";
  return Fast::Point;
}
}  // namespace

std::optional<MetricPoint> parse_metric_json(const std::string& line) {
  {
    MetricPoint fast;
    switch (parse_flat_point(line, fast)) {
      case Fast::Point:
        return fast;
      case Fast::Rejected:
        return std::nullopt;
      case Fast::Unsure:
        break;
    }
  }
  return parse_metric_json_fully(line);
}

std::optional<MetricPoint> parse_metric_json_fully(const std::string& line) {
  const auto j = nlohmann::json::parse(line, nullptr, false);
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string() || !j.contains("value") ||
      !j["value"].is_number())
    return std::nullopt;
  MetricPoint p;
  p.name = j["name"].get<std::string>();
  if (!valid_metric_name(p.name)) return std::nullopt;
  p.value = j["value"].get<double>();
  if (!std::isfinite(p.value)) return std::nullopt;
  if (j.contains("step") && j["step"].is_number_integer()) p.step = j["step"].get<long long>();
  if (j.contains("epoch") && j["epoch"].is_number_integer()) p.epoch = j["epoch"].get<long long>();
  if (j.contains("phase") && j["phase"].is_string()) p.phase = j["phase"].get<std::string>();
  if (j.contains("rank") && j["rank"].is_number_integer()) p.rank = j["rank"].get<int>();
  if (j.contains("time") && j["time"].is_number()) p.time = j["time"].get<double>();
  p.source = j.contains("via") && j["via"] == "stdout" ? "stdout" : "client";
  return p;
}

int garbled_metric_lines(const std::string& out_file, long max_bytes) {
  struct stat st {};
  if (::lstat(out_file.c_str(), &st) != 0 || st.st_size == 0 || st.st_size > max_bytes) return 0;
  int garbled = 0;
  read_lines(out_file, [&](const std::string& line) {
    if (line.find(kMetricLinePrefix) != std::string::npos) parse_metric_stdout(line, &garbled);
  });
  return garbled;
}

int unreadable_metric_lines(const std::string& run_dir, const std::string& name,
                            const std::vector<std::string>& files) {
  int count = 0;
  bool stamped = false;
  for (const auto& f : files) {
    if (!is_stamped_metrics_file(f)) continue;
    stamped = true;
    read_lines(f, [&](const std::string& line) { count += line.rfind("{\"unreadable\":", 0) == 0; });
  }
  return stamped ? count : garbled_metric_lines(run_dir + "/" + name + ".out");
}

RankFiles rank_files(const std::string& run_dir) {
  RankFiles files;
  const auto ends_with = [](const std::string& f, std::string_view suffix) {
    return f.size() > 8 + suffix.size() && f.compare(f.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (DIR* d = ::opendir(run_dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string f = e->d_name;
      if (f.rfind("metrics.", 0) != 0) continue;
      if (ends_with(f, ".ndjson")) files.points.push_back(run_dir + "/" + f);
      if (ends_with(f, ".lost")) files.losses.push_back(run_dir + "/" + f);
    }
    ::closedir(d);
  }
  std::sort(files.points.begin(), files.points.end());
  std::sort(files.losses.begin(), files.losses.end());
  return files;
}

std::vector<std::string> metric_files(const std::string& run_dir) { return rank_files(run_dir).points; }

std::vector<std::string> metric_losses(const std::vector<std::string>& lost_files) {
  std::vector<std::string> out;
  for (const auto& path : lost_files) {
    const std::string name = path.substr(path.rfind('/') + 1);
    const std::string rank = name.substr(8, name.size() - 8 - 5);
    std::string said = read_regular_file(path, 4096, true).value_or("");
    if (const auto nl = said.find('\n'); nl != std::string::npos) said.resize(nl);
    if (said.size() > 200) said = said.substr(0, 197) + "...";
    said = sanitized_utf8(said, false);  // a program's bytes: no escape reaches a terminal
    out.push_back("rank " + rank + ": " + (said.empty() ? "points could not be written" : said));
  }
  return out;
}

std::vector<MetricPoint> read_metrics(const std::string& run_dir, const std::string& name) {
  std::vector<MetricPoint> out;
  // Printed lines stamped as they came (stdout_stamps.hpp): by the ranks' wrappers, all of
  // them (NAME.out adds nothing); by ssim run for a lone program, NAME.out up to the last
  // offset it recorded (the rest is read from NAME.out, without a time).
  bool stamped = false;
  long long out_from = 0;
  for (const auto& f : metric_files(run_dir)) {
    const bool stamps = is_stamped_metrics_file(f);
    stamped = stamped || stamps;
    read_lines(f, [&](const std::string& line) {
      if (auto p = parse_metric_json(line))
        out.push_back(std::move(*p));
      else if (const long long at = stamps ? out_offset_of(line) : -1; at >= 0)
        out_from = at;
    });
  }
  if (stamped && out_from == 0) return out;
  const auto text = read_run_file(run_dir + "/" + name + ".out");
  if (!text || static_cast<size_t>(out_from) >= text->size()) return out;
  std::istringstream in(out_from > 0 ? text->substr(static_cast<size_t>(out_from)) : *text);
  for (std::string line; std::getline(in, line);)
    for (auto& p : parse_metric_stdout(line)) out.push_back(std::move(p));
  return out;
}

std::map<std::string, MetricPoint> latest_metrics(const std::vector<MetricPoint>& points) {
  // Each metric's highest step (-1: none given), then each rank's last point at it.
  std::map<std::string, long long> top;
  for (const auto& p : points) {
    const auto [it, first] = top.emplace(p.name, p.step.value_or(-1));
    if (!first) it->second = std::max(it->second, p.step.value_or(-1));
  }
  std::map<std::pair<std::string, int>, const MetricPoint*> last_of_rank;
  for (const auto& p : points)
    if (p.step.value_or(-1) == top[p.name]) last_of_rank[{p.name, p.rank}] = &p;
  // The ranks folded into their mean, as the charts draw them; the one reported last
  // gives the rest of the point (its step, time, phase).
  std::map<std::string, MetricPoint> out;
  std::map<std::string, std::pair<double, int>> sums;
  for (const auto& [key, p] : last_of_rank) {
    auto [it, first] = out.emplace(key.first, *p);
    if (!first && p->time >= it->second.time) it->second = *p;
    auto& [sum, count] = sums[key.first];
    sum += p->value;
    ++count;
  }
  for (auto& [name, p] : out) p.value = sums[name].first / sums[name].second;
  return out;
}

bool meets(const Goal& goal, double value) { return goal.at_least ? value >= goal.target : value <= goal.target; }

std::optional<GoalReached> goal_reached(const Goal& goal, const std::vector<MetricPoint>& points, double start) {
  for (const auto& p : points) {
    if (p.name != goal.metric || !meets(goal, p.value)) continue;
    GoalReached r;
    r.value = p.value;
    r.step = p.step;
    if (p.time > 0 && start > 0) r.seconds = std::max(0.0, p.time - start);
    return r;
  }
  return std::nullopt;
}

namespace {
std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}
}  // namespace

std::string goal_text(const Goal& goal) {
  return goal.metric + (goal.at_least ? " >= " : " <= ") + short_number(goal.target);
}

std::string reached_text(const std::optional<GoalReached>& reached) {
  if (!reached) return "not reached";
  std::string out = "reached";
  if (reached->step) out += " at step " + std::to_string(*reached->step);
  if (reached->seconds >= 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", reached->seconds);
    out += std::string(" after ") + buf + " s";
  }
  return out + " (" + short_number(reached->value) + ")";
}

CurveSeries curve_series(const std::vector<MetricPoint>& points, double start, size_t max) {
  CurveSeries series;
  for (const auto& p : points) {
    auto& line = series[{p.name, p.rank}];
    const double x = p.step ? static_cast<double>(*p.step) : static_cast<double>(line.size());
    line.push_back({x, p.value, p.time > 0 && start > 0 ? p.time - start : std::nan("")});
  }
  for (auto& [key, line] : series)
    if (line.size() > max && max >= 2) {
      std::vector<CurvePoint> kept;
      kept.reserve(max);
      for (size_t i = 0; i < max; ++i) kept.push_back(line[i * (line.size() - 1) / (max - 1)]);
      line = std::move(kept);
    }
  return series;
}

}  // namespace ssim::state
