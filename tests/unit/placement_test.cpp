#include <catch2/catch.hpp>

#include "launchers/placement/placement.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim;
using namespace ssim::launch;
using namespace ssim::launchers;

namespace {
plan::Plan seed_plan(const std::string& extra = "") {
  return test::plan_of(
      "experiment: {name: seed, launcher: slurm}\norchestrator: {}\n"
      "ensembles:\n  - {name: producer, exe: p, replicas: 2, run: {ntasks: 2, exclusive: true}}\n"
      "models:\n  - {name: trainer, exe: t, run: {nodes: 1}}\n" +
      extra);
}
Allocation nodes(std::vector<std::string> hosts, int cpus = 0) {
  Allocation a{"1", hosts, {}};
  if (cpus)
    for (const auto& h : hosts) a.slots[h] = cpus;
  return a;
}
}  // namespace

TEST_CASE("placement: database first, then each whole-node entity on its own nodes") {
  const auto p = place(seed_plan(), nodes({"n1", "n2", "n3", "n4"}));
  CHECK(p.database.at(0).nodes == std::vector<std::string>{"n1"});
  CHECK(p.steps.at("producer_0").nodes == std::vector<std::string>{"n2"});
  CHECK(p.steps.at("producer_1").nodes == std::vector<std::string>{"n3"});
  CHECK(p.steps.at("trainer").nodes == std::vector<std::string>{"n4"});  // nodes: means whole nodes
  CHECK_FALSE(p.steps.at("trainer").shared);
  CHECK(p.pool.empty());
  CHECK(nodes_needed(seed_plan()) == 4);
}

TEST_CASE("placement: a plan that does not fit names what does not") {
  CHECK_THROWS_WITH(place(seed_plan(), nodes({"n1", "n2", "n3"})),
                    Catch::Contains("trainer needs 1 node(s)") && Catch::Contains("needs 4 nodes"));
  const auto pinned = test::plan_of("experiment: {name: x}\nmodels:\n  - {name: a, exe: t, run: {hosts: [n9]}}\n");
  CHECK_THROWS_WITH(place(pinned, nodes({"n1"})), Catch::Contains("pinned to n9"));
  const auto wide =
      test::plan_of("experiment: {name: x}\norchestrator: {}\nmodels:\n  - {name: a, exe: t, run: {ntasks: 9}}\n");
  CHECK_THROWS_WITH(place(wide, nodes({"n1", "n2", "n3"}, 4)),
                    Catch::Contains("a: 9 task(s) of 1 CPU(s) do not fit 2 node(s) of 4 CPUs"));
  CHECK_THROWS_WITH(place(wide, nodes({"n1"}, 4)), Catch::Contains("no nodes to share"));
}

TEST_CASE("placement: entities that ask for no whole nodes are packed in what is left") {
  const auto plan =
      test::plan_of("experiment: {name: x}\norchestrator: {}\nensembles:\n  - {name: e, exe: t, replicas: 200}\n");
  const auto p = place(plan, nodes({"n1", "n2", "n3"}, 32));
  CHECK(p.steps.empty());
  REQUIRE(p.pool.size() == 2);  // n1 holds the database
  CHECK(p.pool[0].name == "n2");
  CHECK(p.pool[0].cpus == 32);
  CHECK(is_packed(plan.steps.at(0)));
  // --batch: one node for the database, 7 of 32 cores for 200 one-task members.
  CHECK(nodes_needed(plan, 32) == 8);
  CHECK(nodes_needed(plan, 0) == 2);  // CPUs per node unknown: they share one node
  const auto throttled = test::plan_of(
      "experiment: {name: x, max_running: 40}\nensembles:\n  - {name: e, exe: t, replicas: 200, run: {cpus_per_task: "
      "2}}\n");
  CHECK(nodes_needed(throttled, 32) == 3);  // 40 at once x 2 CPUs
}

TEST_CASE("placement: pinned steps overlap, and so does a whole-node step on a pinned node") {
  const auto plan = test::plan_of(
      "experiment: {name: x}\nmodels:\n  - {name: a, exe: t, run: {exclusive: true}}\n"
      "  - {name: b, exe: t, run: {hosts: [n1]}}\n");
  const auto p = place(plan, nodes({"n1", "n2"}, 4));
  CHECK(p.steps.at("a").nodes == std::vector<std::string>{"n1"});
  CHECK(p.steps.at("a").shared);
  CHECK(p.steps.at("b").shared);
  REQUIRE(p.pool.size() == 1);
  CHECK(p.pool[0].name == "n2");
}
