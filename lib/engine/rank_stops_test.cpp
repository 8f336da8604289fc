// A failed rank's step, ended by ssim, as data: a manifest, a run directory with rank
// records and a fake clock; what is stopped is recorded by the rig, no launcher.
#include "lib/engine/rank_stops.hpp"

#include <catch2/catch.hpp>
#include <fstream>

#include "lib/state/rank_ends.hpp"
#include "tests/unit/helpers.hpp"
#include "tests/unit/run_rig.hpp"

using namespace ssim;
using state::Status;

TEST_CASE("rank stops: a rank's failure that stands past the grace ends the step, and the entity fails with it") {
  test::TempDir dir;
  const plan::Plan plan =
      test::plan_of("experiment: {name: x}\nmodels:\n  - {name: t, exe: /bin/true, run: {ntasks: 2}}\n");
  test::RunRig rig;
  rig.steps.add(plan.steps[0]);
  state::EntityRecord r;
  r.name = "t";
  r.run_dir = dir.path.string();
  r.status = Status::Running;
  r.nodes = "n1,n2";
  rig.m.entities = {r};
  engine::RankStops ranks;
  const auto where = [](const state::EntityRecord&) { return std::string("n1,n2"); };

  ranks.check(rig.run, {0}, where);  // no rank ended
  CHECK(rig.stopped.empty());
  state::RankEnd failed;
  failed.rank = 1, failed.exit_code = 7, failed.end = rig.clock.now(), failed.host = "n2", failed.said = "boom";
  std::ofstream(dir.path / state::kRankEndsFile) << state::encode_rank_end(failed);
  rig.clock.sleep(std::chrono::milliseconds(1000));
  ranks.check(rig.run, {0}, where);  // failed, but within the grace: the step may still end on its own
  CHECK(rig.stopped.empty());
  rig.clock.sleep(std::chrono::milliseconds(static_cast<long>(engine::kRankFailureGrace * 1000) + 1000));
  ranks.check(rig.run, {0}, where);
  CHECK(rig.stopped == std::vector<std::string>{"t"});
  CHECK(rig.run.dirty);
  rig.clock.sleep(std::chrono::milliseconds(1000));
  ranks.check(rig.run, {0}, where);
  CHECK(rig.stopped.size() == 1);  // asked once

  // Its launcher ends it on ssim's signal: failed with the rank's reason and exit code.
  rig.m.entities[0].status = Status::Cancelled;
  rig.m.entities[0].signal = 15;
  ranks.settle(rig.m.entities[0]);
  CHECK(rig.m.entities[0].status == Status::Failed);
  CHECK(rig.m.entities[0].exit_code == 7);
  CHECK_FALSE(rig.m.entities[0].signal);
  CHECK_THAT(rig.m.entities[0].reason, Catch::Contains("rank 1"));
}
