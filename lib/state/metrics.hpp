#pragma once
// Training metrics an entity reports (docs/metrics.md): the files its ranks write through
// the client (<run_dir>/metrics.RANK.ndjson, one JSON object a line) and the lines a
// program prints on stdout in the documented form ("ssim:metric loss=0.31 step=120"),
// read back in one shape. Pure parsers, unit-tested; the readers only read files.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lib/state/metric_line.hpp"

namespace ssim::state {

// One line of a metrics file: {"name", "value", "step"?, "epoch"?, "phase"?, "rank"?,
// "time"?}; nullopt for anything else (a torn last line after kill -9, garbage).
std::optional<MetricPoint> parse_metric_json(const std::string& line);
// The same through the full JSON parser: what parse_metric_json falls back to when its
// fast reader is unsure, and what it must always agree with (unit-tested).
std::optional<MetricPoint> parse_metric_json_fully(const std::string& line);

// How many metric lines of a program's stdout (NAME.out) could not be read: said at the
// entity's end, since they are points lost. Files past `max_bytes` are not read (0).
int garbled_metric_lines(const std::string& out_file, long max_bytes = 64L << 20);
// The same for an entity whose ranks' wrappers stamped their printed lines
// (stdout_stamps.hpp): the lines their own streams held that were not the documented
// form, counted from the stamped files among `files` (its rank_files' points); from
// RUN_DIR/NAME.out when there are none.
int unreadable_metric_lines(const std::string& run_dir, const std::string& name, const std::vector<std::string>& files);

// The files its ranks write in `run_dir`, sorted, from one listing: their points through
// the client (metrics.RANK.ndjson), and what they could not write (metrics.RANK.lost, left
// by the Python writer at exit when the disk refused points).
struct RankFiles {
  std::vector<std::string> points;
  std::vector<std::string> losses;
};
RankFiles rank_files(const std::string& run_dir);
std::vector<std::string> metric_files(const std::string& run_dir);  // rank_files(run_dir).points
// The losses' words, one line each: "rank R: N points could not be written to ...:
// [Errno 28] No space left on device" ("rank R: points could not be written" when the
// disk left the file empty).
std::vector<std::string> metric_losses(const std::vector<std::string>& lost_files);
// The start of an entity's note when its metric points were lost.
inline constexpr const char* kMetricPointsLost = "metric points lost";

// Every point entity `name` reported, in the order reported (per source).
std::vector<MetricPoint> read_metrics(const std::string& run_dir, const std::string& name);

// A point of a training curve as the charts draw it: x is the step when given, else the
// point's place in its line (stdout lines may carry no step); the value; the seconds
// since the entity started (NaN when unknown: a printed line).
struct CurvePoint {
  double x = 0;
  double value = 0;
  double seconds = 0;
};
using CurveSeries = std::map<std::pair<std::string, int>, std::vector<CurvePoint>>;
// Each (metric, rank)'s curve in the order reported, at most `max` (>= 2) points, evenly
// chosen, the first and the last kept; `start` is the entity's start (epoch seconds).
CurveSeries curve_series(const std::vector<MetricPoint>& points, double start, size_t max);

// The latest point of each metric: its highest step (without steps: the last reported),
// its value the mean of each rank's last value at that step (as the charts fold ranks).
std::map<std::string, MetricPoint> latest_metrics(const std::vector<MetricPoint>& points);

// A model's or ensemble's `goal:` (docs/metrics.md): a metric reaching a value ("time to
// accuracy"), and whether the member is stopped once it has.
struct Goal {
  std::string metric;
  bool at_least = true;  // at_least: value >= target; else at_most: value <= target
  double target = 0;
  bool stop = false;  // stop_on_goal
};
struct GoalReached {
  double value = 0;
  std::optional<long long> step;
  double seconds = -1;  // after the entity started; < 0 when unknown (a stdout line has no time)
};
// The first point of the goal's metric that meets it, in the order reported; `start` is
// the entity's start (epoch seconds).
std::optional<GoalReached> goal_reached(const Goal& goal, const std::vector<MetricPoint>& points, double start);
bool meets(const Goal& goal, double value);
// "val_acc >= 0.8"
std::string goal_text(const Goal& goal);
// "reached at step 120 after 12.3 s (0.81)", or "not reached".
std::string reached_text(const std::optional<GoalReached>& reached);

}  // namespace ssim::state
