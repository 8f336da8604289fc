// The metric readers: the client's NDJSON lines and the documented stdout form.
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <thread>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "lib/client/metrics.hpp"
#include "lib/state/metrics.hpp"
#include "lib/state/metrics_bound.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim;

TEST_CASE("metrics: a client line is read whole, and anything else is skipped") {
  const auto p = state::parse_metric_json(
      R"({"name":"loss","value":0.31,"step":120,"epoch":2,"phase":"val","rank":1,"time":5.5})");
  REQUIRE(p);
  CHECK(p->name == "loss");
  CHECK(p->value == 0.31);
  CHECK(p->step == 120);
  CHECK(p->epoch == 2);
  CHECK(p->phase == "val");
  CHECK(p->rank == 1);
  CHECK(p->source == "client");
  CHECK_FALSE(state::parse_metric_json(R"({"name":"loss","value":0.3)"));  // torn by kill -9
  CHECK_FALSE(state::parse_metric_json(R"({"name":"1bad","value":1})"));
  CHECK_FALSE(state::parse_metric_json(R"({"name":"loss","value":"x"})"));
  CHECK_FALSE(state::parse_metric_json("garbage"));
}

TEST_CASE("metrics: ssim:metric lines on stdout give a point per metric") {
  const auto points = state::parse_metric_stdout("ssim:metric loss=0.5 acc=0.9 step=3 epoch=1 phase=train rank=2\r");
  REQUIRE(points.size() == 2);
  CHECK(points[0].name == "loss");
  CHECK(points[0].value == 0.5);
  CHECK(points[1].name == "acc");
  for (const auto& p : points) {
    CHECK(p.step == 3);
    CHECK(p.epoch == 1);
    CHECK(p.phase == "train");
    CHECK(p.rank == 2);
    CHECK(p.source == "stdout");
  }
  // Ranks' lines run together by the launcher's output forwarding: each read, or counted.
  int garbled = 0;
  CHECK(state::parse_metric_stdout("ssim:metric loss=0.5 step=3 rank=0ssim:metric loss=0.4 step=3 rank=1", &garbled)
            .size() == 2);
  CHECK(state::parse_metric_stdout("epoch 2 done ssim:metric loss=0.3 step=4 rank=1", &garbled).size() == 1);
  CHECK(garbled == 0);
  CHECK(state::parse_metric_stdout("ssim:metric loss=0.5 stssim:metric loss=0.4 step=5 rank=1", &garbled).size() == 1);
  CHECK(garbled == 1);
  CHECK(state::parse_metric_stdout("loss=0.5").empty());              // not the prefix
  CHECK(state::parse_metric_stdout("ssim:metric loss=abc").empty());  // not a number
  CHECK(state::parse_metric_stdout("ssim:metric loss=0.5 step=x").empty());
  CHECK(state::parse_metric_stdout("ssim:metric loss 0.5").empty());
  CHECK(state::parse_metric_stdout("ssim:metric loss=nan").empty());
}

TEST_CASE("metrics: the latest point is the highest step, then the last reported") {
  test::TempDir dir;
  const std::string run = dir.path.string();
  std::ofstream(run + "/metrics.0.ndjson") << R"({"name":"loss","value":3,"step":1})"
                                              "\n"
                                           << R"({"name":"loss","value":1,"step":3})"
                                              "\n"
                                           << R"({"name":"loss","value":2,"step":2})"
                                              "\n"
                                           << R"({"name":"acc","value":0.5)";  // torn
  std::ofstream(run + "/e.out") << "hello\nssim:metric acc=0.7\n";
  const auto points = state::read_metrics(run, "e");
  CHECK(points.size() == 4);
  const auto latest = state::latest_metrics(points);
  CHECK(latest.at("loss").value == 1);
  CHECK(latest.at("acc").value == 0.7);
  CHECK(latest.at("acc").source == "stdout");
}

TEST_CASE("metrics: the latest value of several ranks is their mean at the highest step, as charts fold them") {
  auto point = [](double value, long long step, int rank, double time) {
    return state::MetricPoint{"loss", value, step, std::nullopt, "", rank, time, "client"};
  };
  // Rank 1 reported step 9 last in time, rank 2 has not reached step 9: not counted.
  const std::vector<state::MetricPoint> points = {point(5, 8, 0, 1), point(4, 9, 0, 2), point(7, 8, 2, 3),
                                                  point(3, 9, 1, 5), point(2, 9, 1, 6)};
  const auto latest = state::latest_metrics(points);
  CHECK(latest.at("loss").value == 3);  // (4 + 2) / 2: rank 1's last word at step 9 is 2
  CHECK(latest.at("loss").step == 9);
  CHECK(latest.at("loss").time == 6);
}

TEST_CASE("metrics: what the C++ client logs is read back as the Python client's") {
  test::TempDir dir;
  const std::string run = dir.path.string();
  ::setenv("SSIM_RUN_DIR", run.c_str(), 1);
  ::setenv("OMPI_COMM_WORLD_RANK", "3", 1);
  ssim::metrics::log("loss", 0.5, 1);
  ssim::metrics::log("loss", 0.25, 2, 1, "train \"quoted\"");
  ssim::metrics::log("loss", std::nan(""), 3);  // skipped
  CHECK_THROWS_AS(ssim::metrics::log("9lives", 1.0), std::invalid_argument);
  ssim::metrics::flush();
  ::unsetenv("SSIM_RUN_DIR");
  ::unsetenv("OMPI_COMM_WORLD_RANK");
  const auto points = state::read_metrics(run, "none");
  REQUIRE(points.size() == 2);
  CHECK(points[1].value == 0.25);
  CHECK(points[1].step == 2);
  CHECK(points[1].epoch == 1);
  CHECK(points[1].phase == "train \"quoted\"");
  CHECK(points[1].rank == 3);
  CHECK(std::filesystem::exists(run + "/metrics.3.ndjson"));
}

TEST_CASE("metrics: points a client appends while ssim thins the file are neither lost nor doubled") {
  // Every point its own metric: thinning can drop none of them, but every pass still
  // replaces the file under the writers' feet, which is what the lock protocol is for.
  test::TempDir dir;
  const std::string run = dir.path.string();
  ::setenv("SSIM_RUN_DIR", run.c_str(), 1);
  const std::string path = run + "/metrics.0.ndjson";
  // Written until both sides had their share, however the machine schedules them.
  std::atomic<bool> done{false};
  std::atomic<int> replaced{0};
  int written = 0;
  std::thread writer([&] {
    for (; (written < 300 || replaced < 10) && written < 100000; ++written) {
      ssim::metrics::log("p" + std::to_string(written), written, written);
      ssim::metrics::flush();
    }
    done = true;
  });
  while (!done) replaced += state::bound_metrics_file(path, 4096, nullptr) ? 1 : 0;
  writer.join();
  ::unsetenv("SSIM_RUN_DIR");
  REQUIRE(replaced >= 10);  // the race did happen
  const auto points = state::read_metrics(run, "none");
  REQUIRE(points.size() == static_cast<size_t>(written));
  for (int i = 0; i < written; ++i) CHECK(points[i].step == i);
}

TEST_CASE("a goal is reached by the first point that meets it, with its step and time after the start") {
  const auto point = [](const char* name, double v, long long step, double time) {
    state::MetricPoint p;
    p.name = name;
    p.value = v;
    p.step = step;
    p.time = time;
    return p;
  };
  const std::vector<state::MetricPoint> points = {point("acc", 0.5, 1, 110), point("loss", 0.9, 1, 110),
                                                  point("acc", 0.85, 2, 115), point("acc", 0.95, 3, 120)};
  const state::Goal acc{"acc", true, 0.8, false};
  const auto r = state::goal_reached(acc, points, 100);
  REQUIRE(r);
  CHECK(r->step == 2);
  CHECK(r->value == 0.85);
  CHECK(r->seconds == 15);
  CHECK(state::reached_text(r) == "reached at step 2 after 15.0 s (0.85)");
  CHECK(state::goal_text(acc) == "acc >= 0.8");
  CHECK_FALSE(state::goal_reached({"acc", true, 0.99, false}, points, 100));
  CHECK(state::reached_text(std::nullopt) == "not reached");
  const auto low = state::goal_reached({"loss", false, 1.0, false}, points, 0);  // no start: no time
  REQUIRE(low);
  CHECK(low->seconds < 0);
  CHECK(state::reached_text(low) == "reached at step 1 (0.9)");
}

TEST_CASE("metrics: series by metric and rank against the step, thinned evenly keeping both ends") {
  std::vector<state::MetricPoint> points;
  for (int i = 0; i < 5; ++i) points.push_back({"loss", 1.0 / (i + 1), i * 10, std::nullopt, "", 0, 0, "client"});
  points.push_back({"loss", 7, std::nullopt, std::nullopt, "", 1, 0, "stdout"});  // rank 1, no step: its place
  points.push_back({"loss", 8, std::nullopt, std::nullopt, "", 1, 0, "stdout"});
  auto xy = [](const std::vector<state::CurvePoint>& line) {
    std::vector<std::pair<double, double>> out;
    for (const auto& p : line) out.emplace_back(p.x, p.value);
    return out;
  };
  const auto series = state::curve_series(points, 0, 300);
  REQUIRE(series.size() == 2);
  CHECK(series.at({"loss", 0}).size() == 5);
  CHECK(xy(series.at({"loss", 0}))[4] == std::pair<double, double>{40, 0.2});
  CHECK(xy(series.at({"loss", 1})) == std::vector<std::pair<double, double>>{{0, 7}, {1, 8}});
  std::vector<state::MetricPoint> many;
  for (int i = 0; i < 1000; ++i) many.push_back({"m", static_cast<double>(i), i, std::nullopt, "", 0, 0, "client"});
  const auto thin = state::curve_series(many, 0, 300).at({"m", 0});
  REQUIRE(thin.size() == 300);
  CHECK(thin.front().x == 0);
  CHECK(thin.back().x == 999);
  std::vector<state::MetricPoint> kept;  // short enough: as is
  for (const auto& p : thin) kept.push_back({"m", p.value, static_cast<long long>(p.x), std::nullopt, "", 0, 0, ""});
  CHECK(xy(state::curve_series(kept, 0, 300).at({"m", 0})) == xy(thin));
}

TEST_CASE("metrics: curves carry the seconds since the start, none for printed lines, thinned keeping both ends") {
  std::vector<state::MetricPoint> points;
  for (int i = 0; i < 1000; ++i) points.push_back({"loss", 1.0, i, std::nullopt, "", 0, 1000.0 + i, "client"});
  points.push_back({"acc", 0.5, 3, std::nullopt, "", 1, 0, "stdout"});  // a printed line: no time
  const auto curves = state::curve_series(points, 990.0, 200);
  const auto& loss = curves.at({"loss", 0});
  REQUIRE(loss.size() == 200);
  CHECK(loss.front().x == 0);
  CHECK(loss.front().seconds == 10);  // started at 990, first point at 1000
  CHECK(loss.back().x == 999);
  CHECK(loss.back().seconds == 1009);
  const auto& acc = curves.at({"acc", 1});
  REQUIRE(acc.size() == 1);
  CHECK(acc[0].x == 3);
  CHECK(std::isnan(acc[0].seconds));
  CHECK(std::isnan(state::curve_series(points, 0, 200).at({"loss", 0})[0].seconds));  // no start known
}

TEST_CASE("metrics: the fast reader of client lines answers as the full JSON parser does") {
  const std::vector<std::string> lines = {
      R"({"name": "loss", "value": 0.31, "rank": 1, "time": 1700000000.125, "step": 120, "epoch": 2, "phase": "val"})",
      R"({"name":"loss","value":3})",
      R"(  {"value": -1.5e-3 , "name" : "acc"}  )",
      R"({"name": "loss", "value": -0})",
      R"({"name": "loss", "value": 01})",
      R"({"name": "loss", "value": 1.})",
      R"({"name": "loss", "value": .5})",
      R"({"name": "loss", "value": 1e})",
      R"({"name": "loss", "value": 1e400})",
      R"({"name": "loss", "value": NaN})",
      R"({"name": "loss", "value": "0.3"})",
      R"({"name": "loss", "value": "x", "value": 2})",
      R"({"name": "loss", "value": 2, "value": "x"})",
      R"({"name": "loss", "name": 3, "value": 1})",
      R"({"name": "loss", "value": 1, "step": 1.5})",
      R"({"name": "loss", "value": 1, "step": 4, "step": "x"})",
      R"({"name": "loss", "value": 1, "step": 99999999999999999999})",
      R"({"name": "loss", "value": 1, "rank": 2.0})",
      R"({"name": "loss", "value": 1, "phase": "tr\u00e4in"})",
      "{\"name\": \"loss\", \"value\": 1, \"phase\": \"tr\xc3\xa4in\"}",
      "{\"name\": \"loss\", \"value\": 1, \"phase\": \"\xff\"}",
      R"({"name": "lo\"ss", "value": 1})",
      R"({"name": "loss", "value": 1, "extra": true})",
      R"({"name": "loss", "value": 1, "extra": {"a": 1}})",
      R"({"name": "loss", "value": 1, "extra": null})",
      R"({"name": "loss", "value": 1} trailing)",
      R"({"name": "loss", "value": 1,})",
      R"({"name": "loss" "value": 1})",
      R"({})",
      R"([])",
      "",
      "{",
      R"({"name": "9lives", "value": 1})",
      R"({"name": "loss", "value": 1, "time": "now"})",
      R"({"name": "loss", "value": 1, "epoch": -3, "rank": -1})"};
  for (const auto& line : lines) {
    INFO(line);
    const auto fast = state::parse_metric_json(line);
    const auto full = state::parse_metric_json_fully(line);
    REQUIRE(fast.has_value() == full.has_value());
    if (!fast) continue;
    CHECK(fast->name == full->name);
    CHECK(fast->value == full->value);
    CHECK(fast->step == full->step);
    CHECK(fast->epoch == full->epoch);
    CHECK(fast->phase == full->phase);
    CHECK(fast->rank == full->rank);
    CHECK(fast->time == full->time);
  }
}
