#include <catch2/catch.hpp>

#include "launchers/batch/placement.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim;
using namespace ssim::launchers;

namespace {
plan::Plan seed_plan(const std::string& extra = "") {
  return test::plan_of("experiment: {name: seed, launcher: slurm}\norchestrator: {}\n"
                       "ensembles:\n  - {name: producer, exe: p, replicas: 2, run: {ntasks: 2}}\n"
                       "models:\n  - {name: trainer, exe: t}\n" + extra);
}
}  // namespace

TEST_CASE("placement: database first, then each entity on its own nodes") {
  const auto p = place(seed_plan(), {"n1", "n2", "n3", "n4"});
  CHECK(p.database.at(0).nodes == std::vector<std::string>{"n1"});
  CHECK(p.steps.at("producer_0").nodes == std::vector<std::string>{"n2"});
  CHECK(p.steps.at("producer_1").nodes == std::vector<std::string>{"n3"});
  CHECK(p.steps.at("trainer").nodes == std::vector<std::string>{"n4"});
  CHECK_FALSE(p.steps.at("trainer").shared);
  CHECK(nodes_needed(seed_plan()) == 4);
}

TEST_CASE("placement: a plan that does not fit names what does not") {
  CHECK_THROWS_WITH(place(seed_plan(), {"n1", "n2", "n3"}),
                    Catch::Contains("trainer needs 1 node(s)") && Catch::Contains("needs 4 nodes"));
  const auto pinned = test::plan_of("experiment: {name: x}\nmodels:\n  - {name: a, exe: t, run: {hosts: [n9]}}\n");
  CHECK_THROWS_WITH(place(pinned, {"n1"}), Catch::Contains("pinned to n9"));
}

TEST_CASE("placement: exclusive false shares nodes and overlaps") {
  const auto plan = test::plan_of(
      "experiment: {name: x}\nensembles:\n  - {name: e, exe: t, replicas: 6, run: {exclusive: false}}\n");
  const auto p = place(plan, {"n1", "n2"});
  CHECK(p.steps.at("e_0").nodes == std::vector<std::string>{"n1"});
  CHECK(p.steps.at("e_1").nodes == std::vector<std::string>{"n2"});
  CHECK(p.steps.at("e_2").nodes == std::vector<std::string>{"n1"});
  CHECK(p.steps.at("e_2").shared);
}

