#include <catch2/catch.hpp>

#include "lib/launch/setup_script.hpp"
#include "lib/util/errors.hpp"

#include "launchers/slurm/hostlist.hpp"
#include "launchers/placement/placement.hpp"
#include "launchers/ranks/srun_command.hpp"
#include "launchers/slurm/sacct.hpp"
#include "launchers/slurm/sbatch_script.hpp"
#include "launchers/slurm/slurm_scheduler.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim;
using namespace ssim::launch;
using namespace ssim::launchers;
using namespace ssim::launchers::slurm;
using state::Status;

TEST_CASE("hostlists: ranges, zero padding, several groups, suffixes") {
  using V = std::vector<std::string>;
  CHECK(expand_hostlist("n[1-4]") == V{"n1", "n2", "n3", "n4"});
  CHECK(expand_hostlist("n1") == V{"n1"});
  CHECK(expand_hostlist("gpu[08-11],login") == V{"gpu08", "gpu09", "gpu10", "gpu11", "login"});
  CHECK(expand_hostlist("n[1,3-4,7]") == V{"n1", "n3", "n4", "n7"});
  CHECK(expand_hostlist("rack[1-2]-node[01-02]") == V{"rack1-node01", "rack1-node02", "rack2-node01", "rack2-node02"});
  CHECK(expand_hostlist("a[1-2]-ib,b") == V{"a1-ib", "a2-ib", "b"});
  CHECK_THROWS_AS(expand_hostlist("n[1-"), std::invalid_argument);
  CHECK_THROWS_AS(expand_hostlist("n[3-1]"), std::invalid_argument);
  CHECK_THROWS_AS(expand_hostlist("n[a-b]"), std::invalid_argument);
}

// Recorded from the local test cluster (see the team's notes, observed-outputs.txt).
TEST_CASE("sacct states map to ssim statuses") {
  const auto s = parse_sacct(
      "2|COMPLETED|0:0\n2.batch|COMPLETED|0:0\n7|CANCELLED by 0|0:0\n7.0|COMPLETED|0:0\n"
      "8|FAILED|3:0\n8.batch|FAILED|3:0\n9.batch|CANCELLED|0:15\n10.0|CANCELLED by 0|0:9\n"
      "11|TIMEOUT|0:0\n12|OUT_OF_MEMORY|0:125\n13|NODE_FAIL|0:0\n14|RUNNING|0:0\n15|PENDING|0:0\n");
  CHECK(s.at("2").status == Status::Completed);
  CHECK(s.at("7").status == Status::Cancelled);
  CHECK(s.at("8").status == Status::Failed);
  CHECK(s.at("8").exit_code == 3);
  CHECK(s.at("9.batch").status == Status::Cancelled);
  CHECK(s.at("9.batch").signal == 15);
  CHECK(s.at("10.0").status == Status::Cancelled);
  CHECK(s.at("11").status == Status::Failed);
  CHECK_THAT(s.at("11").reason, Catch::Contains("TIMEOUT"));
  CHECK_THAT(s.at("12").reason, Catch::Contains("OUT_OF_MEMORY"));
  CHECK_THAT(s.at("13").reason, Catch::Contains("NODE_FAIL"));
  CHECK(s.at("14").status == Status::Running);
  CHECK(s.at("15").status == Status::Pending);
  CHECK(status_from_slurm("WEIRD_NEW_STATE", "0:0").status == Status::Unknown);
}

// Recorded from the local test cluster with NodeList (pending jobs say "None assigned").
TEST_CASE("sacct's NodeList says where a job or step runs") {
  const auto s = parse_sacct(
      "32|COMPLETED|0:0|n[1-2]\n32.0|COMPLETED|0:0|n1\n32.1|RUNNING|0:0|n2\n"
      "33|PENDING|0:0|None assigned\n34|COMPLETED|0:0\n");
  CHECK(s.at("32").nodes == "n[1-2]");
  CHECK(s.at("32.0").nodes == "n1");
  CHECK(s.at("32.1").nodes == "n2");
  CHECK(s.at("33").nodes.empty());
  CHECK(s.at("34").nodes.empty());  // an older format: no NodeList
}

TEST_CASE("slurm: pending reasons, and the ones that mean the job can never run") {
  const auto s = parse_sacct(
      "40|PENDING|0:0|None assigned|Priority\n41|PENDING|0:0|None assigned|PartitionNodeLimit\n"
      "42|RUNNING|0:0|n1|None\n");
  CHECK(s.at("40").reason == "pending: Priority");
  CHECK_FALSE(s.at("40").never_runs);
  CHECK(s.at("41").never_runs);
  CHECK(s.at("41").never_reason == "PartitionNodeLimit");
  CHECK(s.at("41").reason == "pending: PartitionNodeLimit");
  CHECK(s.at("42").reason.empty());
  CHECK_FALSE(s.at("42").never_runs);
  CHECK(parse_squeue("5|PENDING|BadConstraints\n").at("5").never_runs);
  CHECK_FALSE(parse_squeue("5|PENDING|Resources\n").at("5").never_runs);
}

TEST_CASE("squeue without accounting, and salloc's job id") {
  const auto s = parse_squeue("2|COMPLETED|None\n3|PENDING|Priority\n4|FAILED|NonZeroExitCode\n");
  CHECK(s.at("2").status == Status::Completed);
  CHECK(s.at("3").status == Status::Pending);
  CHECK(s.at("3").reason == "pending: Priority");
  CHECK(s.at("4").status == Status::Failed);
  CHECK(parse_salloc_job_id("salloc: Granted job allocation 7\n") == "7");
  CHECK(parse_salloc_job_id("salloc: error: invalid partition\n").empty());
}

TEST_CASE("srun lines carry placement, resources, overlap, pmix and launcher_args") {
  plan::Resources r;
  r.ntasks = 4;
  r.tasks_per_node = 2;
  r.cpus_per_task = 3;
  r.gpus_per_task = 1;
  r.time = "01:00:00";
  r.launcher_args = {{"cpu-bind", "cores"}, {"exclusive", ""}};
  const auto argv = srun_command("12", "train", r, Placement{{"n2", "n3"}, true}, {"python3", "a b"});
  CHECK(argv == std::vector<std::string>{"srun", "--jobid=12", "--job-name=train", "--nodelist=n2,n3", "--nodes=2",
                                         "--ntasks=4", "--kill-on-bad-exit=1", "--ntasks-per-node=2",
                                         "--cpus-per-task=3", "--gpus-per-task=1", "--time=01:00:00", "--overlap",
                                         "--mpi=pmix", "--cpu-bind=cores", "--exclusive", "python3", "a b"});
  plan::Resources one;
  const auto single = srun_command("12", "db", one, Placement{{"n1"}, false}, {"x"});
  CHECK(std::find(single.begin(), single.end(), "--mpi=pmix") == single.end());
  CHECK(std::find(single.begin(), single.end(), "--overlap") == single.end());
}

TEST_CASE("batch scripts: directives, resources, setup as written, the command quoted") {
  BatchJob job;
  job.name = "train";
  job.settings.nodes = 2;
  job.settings.time = "01:00:00";
  job.settings.queue = "gpu";
  job.settings.options = {{"gres", spec::Text{"gpu:2", {}}}, {"comment", spec::Text{"two words", {}}}};
  job.res.ntasks = 4;
  job.setup = {"module load pytorch"};
  job.run_dir = "/runs/x y/train";
  job.out = "/runs/x y/train/train.out";
  job.err = "/runs/x y/train/train.err";
  job.env = {{"SSDB", "h:1"}, {"NOTE", "it's $(danger)"}};
  job.command = {"srun", "python3", "a b", "$(rm -rf /)"};
  const std::string s = sbatch_script(job);
  CHECK_THAT(s, Catch::StartsWith("#!/bin/bash\n#SBATCH --job-name=train\n#SBATCH --nodes=2\n"));
  CHECK_THAT(s, Catch::Contains("#SBATCH --partition=gpu\n#SBATCH --ntasks=4\n"));
  CHECK_THAT(s, Catch::Contains("#SBATCH --output=\"/runs/x y/train/train.out\"\n"));
  CHECK_THAT(s, Catch::Contains("#SBATCH --gres=gpu:2\n#SBATCH --comment=\"two words\"\n"));
  CHECK_THAT(s, Catch::Contains("cd '/runs/x y/train'\n"));
  CHECK_THAT(s, Catch::Contains("export NOTE='it'\\''s $(danger)'\n"));
  // The setup line as written, in the one setup script every launcher runs (errexit, pipefail).
  CHECK_THAT(s, Catch::Contains(ssim::launch::setup_prelude(job.setup) + "exec srun python3 'a b' '$(rm -rf /)'\n"));
  CHECK_THAT(s, Catch::Contains("{ module load pytorch\n} 2>"));
  job.settings.options = {{"comment", spec::Text{"a\nb", {}}}};
  CHECK_THROWS_AS(sbatch_script(job), ssim::UsageError);
}

TEST_CASE("slurm: CPUs per node of an allocation, from the job's environment and from squeue") {
  CHECK(slurm::expand_counts("32(x2),16") == std::vector<int>{32, 32, 16});
  CHECK(slurm::expand_counts("4") == std::vector<int>{4});
  CHECK_THROWS_AS(slurm::expand_counts("4(x2"), std::invalid_argument);
  CHECK_THROWS_AS(slurm::expand_counts("a"), std::invalid_argument);
  const slurm::SlurmScheduler s;
  std::map<std::string, std::string> env = {
      {"SLURM_JOB_ID", "7"}, {"SLURM_JOB_NODELIST", "n[1-3]"}, {"SLURM_JOB_CPUS_PER_NODE", "4(x2),2"}};
  const auto getenv = [&](const char* n) -> const char* {
    const auto it = env.find(n);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  const auto a = s.current_allocation(getenv, [](const std::string&) { return std::nullopt; });
  REQUIRE(a);
  CHECK(a->slots == std::map<std::string, int>{{"n1", 4}, {"n2", 4}, {"n3", 2}});
  env["SLURM_JOB_CPUS_PER_NODE"] = "4(x2)";  // does not match the nodes: not counted
  CHECK(s.current_allocation(getenv, [](const std::string&) { return std::nullopt; })->slots.empty());

  const auto b = s.parse_allocation("9", CommandResult{0, "n[1-4]|16\n", ""});
  CHECK(b.hosts.size() == 4);
  CHECK(b.slots.at("n4") == 4);
  CHECK(s.parse_cpus_per_node(CommandResult{0, "32\n16\n", ""}) == 16);
  CHECK(s.parse_cpus_per_node(CommandResult{1, "", "sinfo: error"}) == 0);
}

TEST_CASE("batch scripts: the user's options replace ssim's lines for the same thing, never doubled") {
  BatchJob job = test::one_gpu_job();
  job.settings.options = {{"output", spec::Text{"/scratch/%j.out", {}}}, {"gres", spec::Text{"gpu:a100:1", {}}}};
  const std::string s = sbatch_script(job);
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
    return n;
  };
  CHECK(count("#SBATCH --output=") == 1);
  CHECK_THAT(s, Catch::Contains("#SBATCH --output=/scratch/%j.out\n"));
  CHECK_THAT(s, Catch::Contains("#SBATCH --error=/r/train.err\n"));  // not asked: ssim's
  CHECK(count("gpu") == 1);                                          // the user's gres, not a second --gpus-per-task
  // The experiment as one job: whole nodes, unless the options say how much it takes.
  job.whole_nodes = true;
  CHECK_THAT(sbatch_script(job), !Catch::Contains("--exclusive"));
  job.settings.options.clear();
  CHECK_THAT(sbatch_script(job), Catch::Contains("#SBATCH --exclusive\n"));
}
