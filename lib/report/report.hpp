#pragma once
// `ssim report`: one self-contained HTML page (inline CSS and SVG, no script, nothing
// fetched) about an experiment, finished or running: summary, timeline, per-ensemble
// runtimes and parameters, failures with their stderr, the experiment file.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lib/state/manifest.hpp"
#include "lib/state/metrics.hpp"

namespace ssim::report {

struct ReportInput {
  state::Manifest manifest;
  std::string experiment_file;                      // the YAML text ("" if unreadable)
  std::map<std::string, std::string> stderr_tails;  // failed entity -> its last stderr lines
  double now = 0;                                   // epoch seconds: the end of bars still running
  bool running = false;                             // an ssim run still tracks it
  std::vector<nlohmann::json> db_samples;           // .ssim/db_samples.ndjson (shard_samples.hpp)
  std::vector<nlohmann::json> inference;            // each shard's service (orchestrator::inference_status)
  // What each entity reported, as the report draws it: every (metric, rank) thinned to
  // 200 points (first and last kept), and where its goal was reached. Not every
  // point: 5,000 members x 1,000 points would hold 600 MB. `latest` is each metric's
  // last value as `ssim status` shows it (the mean of the ranks at the highest step).
  struct EntityMetrics {
    state::CurveSeries curves;
    std::map<std::string, double> latest;
    std::optional<state::GoalReached> goal;
  };
  std::map<std::string, EntityMetrics> metrics;
  std::string made_by;  // "ssim VERSION, USER on HOST": who made the report
};

std::string render_report(const ReportInput& in);

}  // namespace ssim::report
