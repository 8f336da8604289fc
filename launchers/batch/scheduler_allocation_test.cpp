// The allocation role of a batch launcher, driven with recorded scheduler answers: what
// it requests, what it reads, and that whatever it was granted and cannot use goes back.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "launchers/batch/scheduler_allocation.hpp"
#include "launchers/slurm/slurm_scheduler.hpp"
#include "lib/util/errors.hpp"
#include "tests/unit/helpers.hpp"
#include "tests/unit/recorded_runner.hpp"

using namespace ssim;
using namespace ssim::launchers;

namespace {

struct AllocationRig {
  test::TempDir dir;
  std::vector<std::vector<std::string>> calls;
  test::RecordedRunner runner{&calls};
  slurm::SlurmScheduler slurm;
  SchedulerAllocation::Log log;
  SchedulerAllocation allocation{slurm, runner, log};
  plan::Plan plan;
  explicit AllocationRig(const std::string& models) {
    ::unsetenv("SLURM_JOB_ID");  // outside any job, whatever runs the tests
    plan = test::plan_of("experiment: {name: al, launcher: slurm}\nallocation: {nodes: 2}\nmodels:\n" + models,
                         dir.path.string());
  }
  long count(const std::string& program) const {
    return std::count_if(calls.begin(), calls.end(), [&](const auto& c) { return c[0] == program; });
  }
};

}  // namespace

TEST_CASE("allocation: a dry run places the plan on placeholder nodes and requests nothing") {
  AllocationRig rig("  - {name: m, exe: /bin/true, run: {nodes: 2, ntasks: 2}}\n");
  rig.allocation.prepare(rig.plan, launch::PrepareOptions{false, 0});
  CHECK(rig.calls.empty());
  CHECK(rig.allocation.id() == "<allocation>");
  CHECK_FALSE(rig.allocation.owned());
  CHECK(rig.allocation.placed_nodes("m") == "node1,node2");
}

TEST_CASE("allocation: requested, read, placed, owned, and released by id") {
  AllocationRig rig("  - {name: m, exe: /bin/true, run: {nodes: 2, ntasks: 2}}\n");
  rig.runner.answers["salloc"] = {{0, "", "salloc: Granted job allocation 41\n"}};
  rig.runner.answers["squeue"] = {{0, "n[3-4]|8\n", ""}};
  rig.allocation.prepare(rig.plan, launch::PrepareOptions{true, 0});
  CHECK(rig.allocation.id() == "41");
  CHECK(rig.allocation.owned());
  CHECK(rig.allocation.placed_nodes("m") == "n3,n4");
  CHECK(rig.allocation.placed_nodes("nobody").empty());
  rig.runner.answers["scancel"] = {{0, "", ""}};
  launch::JobAllocation& role = rig.allocation;
  role.release("41");
  REQUIRE(rig.count("scancel") == 1);
  CHECK(rig.calls.back() == std::vector<std::string>{"scancel", "41"});
}

TEST_CASE("allocation: a refused request is an environment failure, and nothing is owned") {
  AllocationRig rig("  - {name: m, exe: /bin/true}\n");
  rig.runner.answers["salloc"] = {{1, "", "salloc: error: invalid partition specified: nope\n"}};
  CHECK_THROWS_AS(rig.allocation.prepare(rig.plan, launch::PrepareOptions{true, 0}), EnvironmentError);
  CHECK_FALSE(rig.allocation.owned());
  CHECK(rig.count("scancel") == 0);
}

TEST_CASE("allocation: granted but unreadable, or too small for the plan, it is released at once") {
  AllocationRig rig("  - {name: m, exe: /bin/true, run: {nodes: 2, ntasks: 2}}\n");
  rig.runner.answers["salloc"] = {{0, "", "salloc: Granted job allocation 42\n"}};
  rig.runner.answers["scancel"] = {{0, "", ""}};
  SECTION("its nodes cannot be read") {
    rig.runner.answers["squeue"] = {{1, "", "slurm_load_jobs error: Invalid job id specified\n"}};
    CHECK_THROWS_AS(rig.allocation.prepare(rig.plan, launch::PrepareOptions{true, 0}), EnvironmentError);
  }
  SECTION("it holds fewer nodes than asked") {
    rig.runner.answers["squeue"] = {{0, "n3|4\n", ""}};
    CHECK_THROWS_AS(rig.allocation.prepare(rig.plan, launch::PrepareOptions{true, 0}), UsageError);
  }
  REQUIRE(rig.count("scancel") >= 1);
  CHECK(rig.calls.back() == std::vector<std::string>{"scancel", "42"});
}
