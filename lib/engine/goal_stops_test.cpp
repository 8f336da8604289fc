// stop_on_goal as data: a manifest, a run directory with metrics, a fake clock; what is
// stopped is recorded by the rig (tests/unit/run_rig.hpp), no launcher.
#include "lib/engine/goal_stops.hpp"

#include <catch2/catch.hpp>
#include <fstream>

#include "lib/state/metric_line.hpp"
#include "tests/unit/helpers.hpp"
#include "tests/unit/run_rig.hpp"

using namespace ssim;
using state::Status;

TEST_CASE("goal stops: a running entity that reached its goal is stopped once, then completed") {
  test::TempDir dir;
  test::RunRig rig;
  state::EntityRecord r;
  r.name = "train";
  r.run_dir = dir.path.string();
  r.status = Status::Running;
  r.start = 1.7e9;
  r.goal = std::make_shared<const state::Goal>(state::Goal{"acc", true, 0.8, true});
  rig.m.entities = {r};
  engine::GoalStops goals;

  const auto write_point = [&](double value, long long step) {
    state::MetricPoint p;
    p.name = "acc", p.value = value, p.step = step, p.time = 1.7e9 + static_cast<double>(step);
    std::ofstream(dir.path / "metrics.0.ndjson", std::ios::app) << state::encode_metric_json(p) << "\n";
  };
  write_point(0.5, 1);
  goals.check(rig.run);
  CHECK(rig.stopped.empty());
  write_point(0.9, 2);
  goals.check(rig.run);  // within the second: not looked at yet
  CHECK(rig.stopped.empty());
  rig.clock.sleep(std::chrono::milliseconds(1000));
  goals.check(rig.run);
  CHECK(rig.stopped == std::vector<std::string>{"train"});
  CHECK(rig.run.dirty);
  REQUIRE(rig.m.entities[0].extra().reached);
  CHECK(rig.m.entities[0].extra().reached->step == 2);
  rig.clock.sleep(std::chrono::milliseconds(1000));
  goals.check(rig.run);
  CHECK(rig.stopped.size() == 1);  // asked once

  // It ends by ssim's SIGTERM: a success all the same.
  rig.m.entities[0].status = Status::Cancelled;
  rig.m.entities[0].signal = 15;
  goals.settle(rig.m.entities[0]);
  CHECK(rig.m.entities[0].status == Status::Completed);
  CHECK(rig.m.entities[0].exit_code == 0);
  CHECK_FALSE(rig.m.entities[0].signal);
  CHECK_THAT(rig.m.entities[0].reason, Catch::Contains("stopped on reaching its goal (acc >= 0.8"));
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
