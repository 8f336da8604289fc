// A failed rank's step, ended by ssim, as data: a manifest, a run directory with rank
// records and a fake clock; what is stopped is recorded by a lambda, no launcher.
#include "lib/engine/rank_stops.hpp"

#include <spdlog/sinks/null_sink.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "lib/state/rank_ends.hpp"
#include "tests/unit/fake_launcher.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim;
using state::Status;

TEST_CASE("rank stops: a rank's failure that stands past the grace ends the step, and the entity fails with it") {
  test::TempDir dir;
  const plan::Plan plan =
      test::plan_of("experiment: {name: x}\nmodels:\n  - {name: t, exe: /bin/true, run: {ntasks: 2}}\n");
  std::map<std::string, const plan::Step*> steps{{"t", &plan.steps[0]}};
  state::Manifest m;
  state::EntityRecord r;
  r.name = "t";
  r.run_dir = dir.path.string();
  r.status = Status::Running;
  r.nodes = "n1,n2";
  m.entities = {r};
  test::FakeClock clock;
  spdlog::logger log("test", std::make_shared<spdlog::sinks::null_sink_mt>());
  std::vector<std::string> stopped;
  engine::RunContext run{m,
                         steps,
                         clock,
                         log,
                         [](const engine::Event&) {},
                         [&](const state::EntityRecord& e) { stopped.push_back(e.name); }};
  engine::RankStops ranks;
  const auto where = [](const state::EntityRecord&) { return std::string("n1,n2"); };

  ranks.check(run, {0}, where);  // no rank ended
  CHECK(stopped.empty());
  state::RankEnd failed;
  failed.rank = 1, failed.exit_code = 7, failed.end = clock.now(), failed.host = "n2", failed.said = "boom";
  std::ofstream(dir.path / state::kRankEndsFile) << state::encode_rank_end(failed);
  clock.sleep(std::chrono::milliseconds(1000));
  ranks.check(run, {0}, where);  // failed, but within the grace: the step may still end on its own
  CHECK(stopped.empty());
  clock.sleep(std::chrono::milliseconds(static_cast<long>(engine::kRankFailureGrace * 1000) + 1000));
  ranks.check(run, {0}, where);
  CHECK(stopped == std::vector<std::string>{"t"});
  CHECK(run.dirty);
  clock.sleep(std::chrono::milliseconds(1000));
  ranks.check(run, {0}, where);
  CHECK(stopped.size() == 1);  // asked once

  // Its launcher ends it on ssim's signal: failed with the rank's reason and exit code.
  m.entities[0].status = Status::Cancelled;
  m.entities[0].signal = 15;
  ranks.settle(m.entities[0]);
  CHECK(m.entities[0].status == Status::Failed);
  CHECK(m.entities[0].exit_code == 7);
  CHECK_FALSE(m.entities[0].signal);
  CHECK_THAT(m.entities[0].reason, Catch::Contains("rank 1"));
}
