#include "launchers/batch/whole_nodes.hpp"

#include <catch2/catch.hpp>

#include "launchers/placement/placement.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim;
using namespace ssim::launchers;
using Nodes = std::vector<std::string>;

namespace {
plan::Plan plan_with(const std::string& models) {
  return test::plan_of("experiment: {name: x, launcher: slurm}\nmodels:\n" + models);
}
Allocation hosts(Nodes names) { return Allocation{"1", std::move(names), {}}; }
}  // namespace

TEST_CASE("whole nodes: train then evaluate fits a 2-node job, the evaluation on the trainer's nodes") {
  const auto plan = plan_with(
      "  - {name: train, exe: t, run: {nodes: 2}}\n"
      "  - {name: eval, exe: e, run: {nodes: 1}, after: [train]}\n"
      "  - {name: report, exe: r, run: {nodes: 2}, after_any: [eval]}\n");
  const auto p = place(plan, hosts({"n1", "n2"}));
  CHECK(p.steps.at("train").nodes == Nodes{"n1", "n2"});
  CHECK(p.steps.at("eval").nodes == Nodes{"n1"});
  CHECK(p.steps.at("report").nodes == Nodes{"n1", "n2"});  // waits for both, through eval
  CHECK(nodes_needed(plan) == 2);                          // what ssim run --batch asks for
}

TEST_CASE("whole nodes: steps that may run at once never share one") {
  // b and c both wait for a only: either may run beside the other.
  const auto plan = plan_with(
      "  - {name: a, exe: t, run: {nodes: 2}}\n"
      "  - {name: b, exe: t, run: {nodes: 1}, after: [a]}\n"
      "  - {name: c, exe: t, run: {nodes: 2}, after: [a]}\n");
  CHECK(nodes_needed(plan) == 3);
  const auto p = place(plan, hosts({"n1", "n2", "n3"}));
  CHECK(p.steps.at("b").nodes == Nodes{"n3"});        // a node of its own while there is one
  CHECK(p.steps.at("c").nodes == Nodes{"n1", "n2"});  // then a's, which has ended
  CHECK_THROWS_WITH(place(plan, hosts({"n1", "n2"})), Catch::Contains("c needs 2 node(s)"));
  // Without after:, nothing is shared.
  CHECK(nodes_needed(plan_with("  - {name: a, exe: t, run: {nodes: 2}}\n  - {name: b, exe: t, run: {nodes: 1}}\n")) ==
        3);
}

TEST_CASE("whole nodes: a node of its own first, unless that leaves a step that runs beside it none") {
  // b waits for a; c for nothing: with b on the free node, c would have none.
  const auto plan = plan_with(
      "  - {name: a, exe: t, run: {nodes: 2}}\n"
      "  - {name: b, exe: t, run: {nodes: 1}, after: [a]}\n"
      "  - {name: c, exe: t, run: {nodes: 1}}\n");
  const auto p = place(plan, hosts({"n1", "n2", "n3"}));
  CHECK(p.steps.at("b").nodes == Nodes{"n1"});
  CHECK(p.steps.at("c").nodes == Nodes{"n3"});
  CHECK(nodes_needed(plan) == 3);
  // With nodes to spare, nothing is shared: the seed layout, each on its own host.
  const auto spare = place(plan, hosts({"n1", "n2", "n3", "n4"}));
  CHECK(spare.steps.at("b").nodes == Nodes{"n3"});
  CHECK(spare.steps.at("c").nodes == Nodes{"n4"});
}

TEST_CASE("whole nodes: waits follow chains through every kind of wait") {
  const auto plan =
      plan_with("  - {name: a, exe: t}\n  - {name: b, exe: t, after: [a]}\n  - {name: c, exe: t, after_any: [b]}\n");
  Waits waits(plan);
  CHECK(waits.of("c") == std::set<std::string>{"a", "b"});
  CHECK(waits.of("a").empty());
}
