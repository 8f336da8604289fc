// Nodes coming and going during a run, as data: a plan, a manifest, a pool and the node
// sources as lambdas (what the launcher would say), no launcher.
#include "lib/engine/node_changes.hpp"

#include <catch2/catch.hpp>

#include "lib/engine/engine.hpp"
#include "tests/unit/helpers.hpp"
#include "tests/unit/run_rig.hpp"

using namespace ssim;
using state::Status;

namespace {
struct Rig : test::RunRig {
  plan::Plan plan;
  engine::Schedule schedule;
  std::map<std::string, std::string> lost;                     // what the scheduler says is out of use
  std::optional<launch::JobAllocation::Ended> ended;           // whether the allocation ended
  std::map<std::string, std::vector<launch::PoolNode>> frees;  // what a whole-node step gives back

  explicit Rig(const std::string& yaml, int nodes) : plan(test::plan_of(yaml)) {
    m = engine::new_manifest(plan, "id");
    std::vector<launch::PoolNode> pool;
    for (int i = 0; i < nodes; ++i) pool.push_back({"n" + std::to_string(i + 1), 2, std::nullopt});
    schedule.set_pool(launch::NodePool(pool));
    for (const auto& s : plan.steps) {
      schedule.add_step(s, true);
      steps.add(s);
    }
  }
  engine::NodeSources sources() {
    engine::NodeSources s;
    s.freed_by = [this](const std::string& name) { return frees[name]; };
    s.lost = [this] { return lost; };
    s.allocation_ended = [this] { return ended; };
    return s;
  }
};
}  // namespace

TEST_CASE("node changes: a lost node is retired, what can no longer fit fails, and it is restored once back") {
  Rig rig(
      "experiment: {name: x}\nmodels:\n  - {name: wide, exe: /bin/true, run: {ntasks: 3}}\n"
      "ensembles:\n  - {name: e, exe: /bin/true, replicas: 2}\n",
      2);
  engine::NodeChanges nodes(rig.schedule, rig.sources());
  CHECK_FALSE(nodes.retire_lost(rig.run));  // nothing lost

  rig.lost["n2"] = "drained by slurm (bad dimm)";
  CHECK(nodes.retire_lost(rig.run));
  CHECK(rig.m.find("wide")->status == Status::Failed);  // three CPUs are no longer there
  CHECK_THAT(rig.m.find("wide")->reason, Catch::StartsWith("cannot run: "));
  CHECK(rig.m.find("e_0")->status == Status::New);  // one node still fits the members
  REQUIRE_FALSE(rig.said.empty());
  CHECK_THAT(rig.said.front().text, Catch::Contains("node n2 is drained by slurm (bad dimm)"));
  CHECK_FALSE(nodes.retire_lost(rig.run));  // said once

  rig.lost.clear();  // resumed by an administrator
  rig.said.clear();
  CHECK(nodes.retire_lost(rig.run));
  REQUIRE(rig.said.size() == 1);
  CHECK_THAT(rig.said.front().text, Catch::Contains("node n2 is back in service"));
}

TEST_CASE("node changes: when every node goes with the allocation, what had not ended is cancelled with its words") {
  Rig rig("experiment: {name: x}\nensembles:\n  - {name: e, exe: /bin/true, replicas: 3}\n", 2);
  rig.m.find("e_0")->status = Status::Completed;
  rig.m.find("e_1")->status = Status::Running;
  rig.m.find("e_1")->job_id = "agent:g:n1";
  engine::NodeChanges nodes(rig.schedule, rig.sources());
  rig.lost = {{"n1", "lost"}, {"n2", "lost"}};
  rig.ended = launch::JobAllocation::Ended{"allocation 12 ended (CANCELLED by 0)", rig.clock.now()};
  CHECK(nodes.retire_lost(rig.run));
  CHECK(rig.m.find("e_0")->status == Status::Completed);
  CHECK(rig.m.find("e_1")->status == Status::Cancelled);
  CHECK(rig.m.find("e_1")->reason == "allocation 12 ended (CANCELLED by 0)");
  CHECK(rig.m.find("e_2")->status == Status::Cancelled);
  CHECK(rig.m.find("e_2")->reason == "not started: allocation 12 ended (CANCELLED by 0)");
}

TEST_CASE("node changes: a whole-node step's nodes join the pool once it ended for good, once") {
  Rig rig("experiment: {name: x}\nmodels:\n  - {name: big, exe: /bin/true}\n", 1);
  rig.frees["big"] = {{"n9", 4, std::nullopt}};
  engine::NodeChanges nodes(rig.schedule, rig.sources());
  CHECK_FALSE(nodes.take_freed(rig.run, {"big"}));  // still new: keeps them
  rig.m.find("big")->status = Status::Completed;
  CHECK(nodes.take_freed(rig.run, {"big"}));
  CHECK_FALSE(nodes.take_freed(rig.run, {"big"}));
}
