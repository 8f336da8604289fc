// The scheduling rules as data: a plan, a manifest, a node pool and the time in, decisions
// out. No launcher, no clock, no fake.
#include "lib/engine/schedule.hpp"

#include <catch2/catch.hpp>

#include "lib/engine/engine.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim;
using engine::Pass;
using engine::Schedule;
using state::Status;

namespace {

struct Setup {
  plan::Plan plan;
  state::Manifest m;
  Schedule schedule;
  Setup(const std::string& yaml, int cpus, int nodes = 1) : plan(test::plan_of(yaml)) {
    m = engine::new_manifest(plan, "id");
    std::vector<launch::PoolNode> pool;
    for (int i = 0; i < nodes; ++i) pool.push_back({"n" + std::to_string(i + 1), cpus, std::nullopt});
    schedule.set_pool(launch::NodePool(pool));
    for (const auto& s : plan.steps) schedule.add_step(s, true);
  }
  state::EntityRecord& at(const std::string& name) { return *m.find(name); }
  std::vector<std::string> names(const std::vector<size_t>& indices) const {
    std::vector<std::string> out;
    for (size_t i : indices) out.push_back(m.entities[i].name);
    return out;
  }
  // What the engine does with a start: the entity is pending, its room held.
  Pass next(double now = 0, int max_running = 0) {
    Pass p = schedule.next(m, now, max_running, 0);
    for (size_t i : p.start) m.entities[i].status = Status::Pending;
    for (const auto& [i, why] : p.cancel) m.entities[i].status = Status::Cancelled;
    return p;
  }
};

}  // namespace

TEST_CASE("schedule: after: waits for completion, and a failed dependency cancels with its reason") {
  Setup s("experiment: {name: x}\nmodels:\n  - {name: a, exe: /bin/true}\n  - {name: b, exe: /bin/true, after: [a]}\n",
          4);
  auto p = s.next();
  CHECK(s.names(p.start) == std::vector<std::string>{"a"});
  CHECK(s.next().empty());  // b waits while a runs
  s.at("a").status = Status::Failed;
  p = s.next();
  REQUIRE(p.cancel.size() == 1);
  CHECK(s.m.entities[p.cancel[0].first].name == "b");
  CHECK(p.cancel[0].second == "not started: after a failed");
}

TEST_CASE("schedule: packing by CPUs, max_running, held entities and retry backoff") {
  Setup s("experiment: {name: x}\nensembles:\n  - {name: e, exe: /bin/true, replicas: 5}\n", 2);
  auto p = s.next();
  CHECK(s.names(p.start) == std::vector<std::string>{"e_0", "e_1"});
  CHECK(p.throttled_by_room);
  // Held, or waiting out a retry's backoff: not started even with room.
  s.schedule.pool().release("e_0");
  s.schedule.pool().release("e_1");
  s.at("e_2").held = true;
  s.at("e_3").retry_at = 10;
  p = s.next(5);
  CHECK(s.names(p.start) == std::vector<std::string>{"e_4"});
  Setup t("experiment: {name: x, max_running: 1}\nensembles:\n  - {name: e, exe: /bin/true, replicas: 3}\n", 8);
  p = t.schedule.next(t.m, 0, 1, 0);
  CHECK(p.start.size() == 1);
  CHECK(p.throttled);
  CHECK_FALSE(p.throttled_by_room);
}

TEST_CASE("schedule: a gang starts all together, or none holds room while it waits") {
  const std::string yaml =
      "experiment: {name: x}\n"
      "models:\n  - {name: other, exe: /bin/true}\n"
      "ensembles:\n  - {name: ranks, exe: /bin/true, replicas: 4, gang: true}\n";
  Setup s(yaml, 4);
  CHECK(s.schedule.gangs_that_never_fit().empty());
  auto p = s.next();
  // `other` took one CPU first: three are left for four members, so none starts.
  CHECK(s.names(p.start) == std::vector<std::string>{"other"});
  REQUIRE(p.wait.size() == 4);
  CHECK(p.wait[0].second == "waiting for room for all 4 members of ranks to start together (gang: true)");
  CHECK(s.schedule.pool().holders() == std::vector<std::string>{"other"});  // none holds room
  CHECK(p.throttled_by_room);
  s.at("other").status = Status::Completed;
  s.schedule.pool().release("other");
  p = s.next();
  CHECK(s.names(p.start) == std::vector<std::string>{"ranks_0", "ranks_1", "ranks_2", "ranks_3"});
  CHECK(p.wait.empty());
}

TEST_CASE("schedule: a gang's member that failed names its mates that have not ended") {
  Setup s(
      "experiment: {name: x}\nmodels:\n  - {name: other, exe: /bin/true}\n"
      "ensembles:\n  - {name: ranks, exe: /bin/true, replicas: 4, gang: true}\n",
      4);
  s.next();
  s.at("ranks_0").status = Status::Failed;
  s.at("ranks_1").status = Status::Running;
  s.at("ranks_2").status = Status::Completed;  // ended well: kept
  s.at("ranks_3").status = Status::New;
  CHECK(s.schedule.gang_mates_left(s.m, "ranks_0") == std::vector<std::string>{"ranks_1", "ranks_3"});
  CHECK(s.schedule.gang_mates_left(s.m, "other").empty());  // no gang
}

TEST_CASE("schedule: a gang bigger than the pool is said before anything starts") {
  Setup s("experiment: {name: x}\nensembles:\n  - {name: ranks, exe: /bin/true, replicas: 4, gang: true}\n", 2);
  const auto refused = s.schedule.gangs_that_never_fit();
  REQUIRE(refused.size() == 1);
  CHECK_THAT(refused[0], Catch::StartsWith("ensemble ranks has gang: true, so its 4 members start together, but "
                                           "together they need 4 CPUs and there are 2 CPUs"));
  // Without gang: two at a time, the others waiting their turn.
  Setup t("experiment: {name: x}\nensembles:\n  - {name: ranks, exe: /bin/true, replicas: 4}\n", 2);
  CHECK(t.next().start.size() == 2);
}

TEST_CASE("schedule: max_running too small for a gang is its note") {
  Setup s("experiment: {name: x, max_running: 2}\nensembles:\n  - {name: g, exe: /bin/true, replicas: 3, gang: true}\n",
          8);
  const auto p = s.schedule.next(s.m, 0, 2, 0);
  CHECK(p.start.empty());
  REQUIRE(p.wait.size() == 3);
  CHECK(p.wait[0].second ==
        "waiting to start together: the 3 members of g need 3 of experiment.max_running's 2 slots at once");
  REQUIRE(s.schedule.gangs_that_never_fit(2).size() == 1);
  CHECK_THAT(s.schedule.gangs_that_never_fit(2)[0],
             Catch::EndsWith("but experiment.max_running is 2: raise it, or ask for fewer members"));
}
