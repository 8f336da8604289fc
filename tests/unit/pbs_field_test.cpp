// The PBS part of the batch layer against the second set of real OpenPBS outputs
// (tests/fixtures/pbs-captures-s3): job history off, CPUs per host, jobs that can
// never run, and what qsub refuses.
#include <catch2/catch.hpp>

#include "launchers/pbs/pbs_scheduler.hpp"
#include "launchers/pbs/pbs_script.hpp"
#include "launchers/pbs/pbsnodes.hpp"
#include "launchers/pbs/qstat_json.hpp"
#include "launchers/ranks/rank_command.hpp"
#include "lib/util/errors.hpp"
#include "tests/unit/fixture_file.hpp"

using namespace ssim;
using namespace ssim::launch;
using namespace ssim::launchers;
using namespace ssim::launchers::pbs;
using state::Status;

namespace {
CommandResult capture(const std::string& probe) { return test::recorded("pbs-captures-s3", probe); }
CommandResult json_file(const std::string& file) {
  CommandResult r;
  r.out = test::fixture("pbs-captures-s3/" + file);
  return r;
}
BatchJob simple_job() {
  BatchJob job;
  job.name = "sim";
  job.run_dir = "/r";
  job.out = "/r/sim.out";
  job.err = "/r/sim.err";
  job.res.ntasks = 1;
  job.command = {"/bin/true"};
  return job;
}
}  // namespace

TEST_CASE("pbs history off: qstat -x answers about no job, so ssim asks again without -x") {
  PbsScheduler pbs;
  const auto with_x = capture("histoff_qstat_x_json_running");
  CHECK(pbs.status_command({"66.pbs-sim"}) ==
        std::vector<std::string>{"qstat", "-x", "-f", "-F", "json", "66.pbs-sim"});
  // Exit 0, a valid document, and yet no answer: never "the job is gone".
  CHECK_FALSE(pbs.parse_status_output(with_x, {"66.pbs-sim"}));
  CHECK_FALSE(pbs.parse_status_output(capture("histoff_qstat_x_json_all"), {"66.pbs-sim", "67.pbs-sim"}));
  REQUIRE(pbs.switch_status_source(with_x));
  CHECK_FALSE(pbs.switch_status_source(with_x));  // once
  CHECK(pbs.status_command({"66.pbs-sim"}) == std::vector<std::string>{"qstat", "-f", "-F", "json", "66.pbs-sim"});
  CHECK(pbs.status_command({"1.s", "2.s"}) == std::vector<std::string>{"qstat", "-f", "-F", "json"});
  const auto running = pbs.parse_status_output(capture("histoff_qstat_json_running_no_x"), {"66.pbs-sim"});
  REQUIRE(running);
  CHECK(running->at("66.pbs-sim").status == Status::Running);
  CHECK(running->at("66.pbs-sim").nodes == "pn1");
  // Without history a job not listed is Unknown: the launcher then waits for its status file.
  const auto all = pbs.parse_status_output(capture("histoff_qstat_json_all_no_x"), {"66.pbs-sim", "65.pbs-sim"});
  REQUIRE(all);
  CHECK(all->at("66.pbs-sim").status == Status::Running);
  CHECK(all->at("65.pbs-sim").status == Status::Unknown);
}

TEST_CASE("pbs: a failing qstat is not a switch to history off") {
  PbsScheduler pbs;
  CommandResult r;
  r.exit_code = 1;
  r.err = "qstat: cannot connect to server pbs-sim (errno=15010)\n";
  CHECK_FALSE(pbs.switch_status_source(r));
  CHECK(pbs.status_command({"1.s"})[1] == "-x");
}

TEST_CASE("pbs: the CPUs a job holds per host come from exec_host, not PBS_NODEFILE lines") {
  CHECK(cpus_of_exec_host("pn1/0*2+pn2/0*2") == std::vector<std::pair<std::string, int>>{{"pn1", 2}, {"pn2", 2}});
  CHECK(cpus_of_exec_host("pn1/2") == std::vector<std::pair<std::string, int>>{{"pn1", 1}});
  CHECK(cpus_of_exec_host("pn1/0*4+pn1/1*4+pn2/0*8") ==
        std::vector<std::pair<std::string, int>>{{"pn1", 8}, {"pn2", 8}});
  CHECK(cpus_of_exec_host("").empty());

  // select=2:ncpus=8 without mpiprocs: one line per host (s1b), 8 CPUs each.
  PbsScheduler pbs;
  const std::map<std::string, std::string> env = {
      {"PBS_JOBID", "3.pbs-sim"}, {"PBS_NODEFILE", "/aux/3"}, {"NCPUS", "8"}};
  auto getenv = [&](const char* n) -> const char* {
    const auto it = env.find(n);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  auto a = pbs.current_allocation(getenv, [](const std::string&) { return std::optional<std::string>("pn1\npn2\n"); });
  REQUIRE(a);
  CHECK(a->hosts == std::vector<std::string>{"pn1", "pn2"});
  CHECK(a->slots["pn1"] == 8);
  CHECK(a->slots["pn2"] == 8);

  // exec_host says more than NCPUS (the first chunk's) when chunks differ.
  const auto detail = pbs.allocation_detail_command(*a);
  REQUIRE(detail);
  CHECK(*detail == std::vector<std::string>{"qstat", "-f", "-F", "json", "3.pbs-sim"});
  CommandResult r;
  r.exit_code = 0;
  r.out = R"({"Jobs": {"3.pbs-sim": {"job_state": "R", "exec_host": "pn1/0*8+pn2/0*16"}}})";
  pbs.refine_allocation(*a, r);
  CHECK(a->slots["pn1"] == 8);
  CHECK(a->slots["pn2"] == 16);
}

TEST_CASE("pbs: exec_host of finished multi-host jobs names every host") {
  const auto doc = json_file("multimom_qstat_x_json_finished.out");
  bool multi = false;
  const auto parsed = parse_qstat_json(doc.out, "", {});
  REQUIRE(parsed);
  for (const auto& [id, s] : *parsed) multi = multi || s.nodes.find(',') != std::string::npos;
  CHECK(multi);
}

TEST_CASE("pbs: pbsnodes -a gives the CPUs of the smallest host") {
  CHECK(smallest_node_cpus(test::fixture("pbs-captures-s3/pbsnodes_a.out")) == 8);
  CHECK(smallest_node_cpus("") == 0);
  PbsScheduler pbs;
  CHECK(pbs.cpus_per_node_command({}) == std::vector<std::string>{"pbsnodes", "-a"});
}

TEST_CASE("pbs: a job that can never run is marked so, a queued one is only pending") {
  CHECK(status_from_pbs("Q", std::nullopt, "Can Never Run: Insufficient amount of resource: ncpus (R: 64 A: 32 T: 32)")
            .never_runs);
  const auto never = status_from_pbs("Q", std::nullopt, "Can Never Run: Not enough total nodes available");
  CHECK(never.never_runs);
  CHECK(never.never_reason == "Not enough total nodes available");  // PBS's prefix left out where it is parsed
  const auto queued = status_from_pbs("Q", std::nullopt, "Not Running: Insufficient amount of resource: ncpus");
  CHECK(queued.status == Status::Pending);
  CHECK_FALSE(queued.never_runs);
  // The real deleted one: finished, cancelled (deleted before it ran), not "never runs".
  const auto deleted = parse_qstat_json(json_file("s6a_qstat_x_json_20_never_run_deleted.json").out, "", {});
  REQUIRE(deleted);
  for (const auto& [id, s] : *deleted) {
    CHECK(s.status == Status::Cancelled);
    CHECK_FALSE(s.never_runs);
  }
}

TEST_CASE("pbs scripts: live output, chunk resources in select, job names qsub accepts") {
  BatchJob job = simple_job();
  std::string s = pbs_script(job);
  CHECK(s.find("#PBS -k oed\n") != std::string::npos);
  job.settings.options = {{"l", spec::Text{"mem=4gb,walltime=00:10:00", {}}}, {"k", spec::Text{"n", {}}}};
  s = pbs_script(job);
  CHECK(s.find("#PBS -l select=1:ncpus=1:mpiprocs=1:mem=4gb\n") != std::string::npos);
  CHECK(s.find("#PBS -l walltime=00:10:00\n") != std::string::npos);
  CHECK(s.find("-l mem=") == std::string::npos);  // qsub refuses it beside select
  CHECK(s.find("#PBS -k n\n") != std::string::npos);
  CHECK(s.find("-k oed") == std::string::npos);  // the user's keep wins
  job.settings.options = {{"l", spec::Text{"select=2:ncpus=4", {}}}};
  CHECK_THROWS_AS(pbs_script(job), UsageError);

  const std::string long_a(300, 'a');
  const std::string long_b = long_a + "b";
  CHECK(pbs_job_name("short") == "short");
  CHECK(pbs_job_name(long_a).size() == kMaxJobName);
  CHECK(pbs_job_name(long_a) != pbs_job_name(long_b));
  CHECK(pbs_job_name(long_a) == pbs_job_name(long_a));
  job = simple_job();
  job.name = long_a;
  CHECK(pbs_script(job).find("#PBS -N " + pbs_job_name(long_a) + "\n") != std::string::npos);
}

TEST_CASE("pbs scripts: the whole experiment asks for whole hosts' CPUs when known") {
  BatchJob job = simple_job();
  job.whole_nodes = true;
  job.settings.nodes = 2;
  CHECK(pbs_script(job).find("#PBS -l select=2\n") != std::string::npos);
  job.node_cpus = 8;
  CHECK(pbs_script(job).find("#PBS -l select=2:ncpus=8:mpiprocs=8\n") != std::string::npos);
  CHECK(pbs_script(job).find("#PBS -l place=scatter:excl\n") != std::string::npos);
}

TEST_CASE("pbs: a multi-rank step in a job of its own runs mpirun on the job's host file") {
  plan::Resources res;
  res.ntasks = 4;
  plan::Env env;
  RankContext c{"", false, "PBS_NODEFILE"};
  const auto argv = mpirun_command("mpirun", res, Placement{}, c, env);
  REQUIRE(argv.size() >= 5);
  CHECK(argv[3] == "--hostfile");
  CHECK(job_variable_of(argv[4]) == "PBS_NODEFILE");
  BatchJob job = simple_job();
  job.command = argv;
  job.command.push_back("/bin/prog");
  const std::string s = pbs_script(job);
  CHECK(s.find("exec mpirun -np 4 --hostfile \"$PBS_NODEFILE\" /bin/prog\n") != std::string::npos);
  // A single task needs no host file; a word that merely looks like one is quoted.
  res.ntasks = 1;
  CHECK(mpirun_command("mpirun", res, Placement{}, c, env).size() == 3);
  CHECK(job_variable_of("$PBS_NODEFILE").empty());
}
