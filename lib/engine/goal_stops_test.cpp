// stop_on_goal as data: a manifest, a run directory with metrics, a fake clock; what is
// stopped is recorded by a lambda, no launcher.
#include "lib/engine/goal_stops.hpp"

#include <spdlog/sinks/null_sink.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "lib/state/metric_line.hpp"
#include "tests/unit/fake_launcher.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim;
using state::Status;

TEST_CASE("goal stops: a running entity that reached its goal is stopped once, then completed") {
  test::TempDir dir;
  state::Manifest m;
  state::EntityRecord r;
  r.name = "train";
  r.run_dir = dir.path.string();
  r.status = Status::Running;
  r.start = 1.7e9;
  r.goal = std::make_shared<const state::Goal>(state::Goal{"acc", true, 0.8, true});
  m.entities = {r};
  std::map<std::string, const plan::Step*> steps;
  test::FakeClock clock;
  spdlog::logger log("test", std::make_shared<spdlog::sinks::null_sink_mt>());
  std::vector<std::string> stopped;
  engine::RunContext run{m,
                         steps,
                         clock,
                         log,
                         [](const engine::Event&) {},
                         [&](const state::EntityRecord& e) { stopped.push_back(e.name); }};
  engine::GoalStops goals;

  const auto write_point = [&](double value, long long step) {
    state::MetricPoint p;
    p.name = "acc", p.value = value, p.step = step, p.time = 1.7e9 + static_cast<double>(step);
    std::ofstream(dir.path / "metrics.0.ndjson", std::ios::app) << state::encode_metric_json(p) << "\n";
  };
  write_point(0.5, 1);
  goals.check(run);
  CHECK(stopped.empty());
  write_point(0.9, 2);
  goals.check(run);  // within the second: not looked at yet
  CHECK(stopped.empty());
  clock.sleep(std::chrono::milliseconds(1000));
  goals.check(run);
  CHECK(stopped == std::vector<std::string>{"train"});
  CHECK(run.dirty);
  REQUIRE(m.entities[0].reached);
  CHECK(m.entities[0].reached->step == 2);
  clock.sleep(std::chrono::milliseconds(1000));
  goals.check(run);
  CHECK(stopped.size() == 1);  // asked once

  // It ends by ssim's SIGTERM: a success all the same.
  m.entities[0].status = Status::Cancelled;
  m.entities[0].signal = 15;
  goals.settle(m.entities[0]);
  CHECK(m.entities[0].status == Status::Completed);
  CHECK(m.entities[0].exit_code == 0);
  CHECK_FALSE(m.entities[0].signal);
  CHECK_THAT(m.entities[0].reason, Catch::Contains("stopped on reaching its goal (acc >= 0.8"));
}

TEST_CASE("goal stops: an entity ssim did not stop on its goal is left as it ended") {
  state::EntityRecord r;
  r.name = "other";
  r.status = Status::Failed;
  r.exit_code = 1;
  engine::GoalStops goals;
  goals.settle(r);
  CHECK(r.status == Status::Failed);
  CHECK(r.exit_code == 1);
}
