// The PBS part of the batch layer, on outputs recorded from a real OpenPBS.
#include <catch2/catch.hpp>
#include "lib/launch/setup_script.hpp"

#include "lib/util/errors.hpp"

#include "launchers/pbs/pbs_scheduler.hpp"
#include "launchers/pbs/pbs_script.hpp"
#include "launchers/pbs/qstat_json.hpp"
#include "tests/unit/fixture_file.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim;
using namespace ssim::launch;
using namespace ssim::launchers;
using namespace ssim::launchers::pbs;
using state::Status;

namespace {
CommandResult capture(const std::string& probe) { return test::recorded("pbs-captures", probe); }
}  // namespace

TEST_CASE("pbs: qsub's job id is its whole first line, refusals give none") {
  PbsScheduler pbs;
  CHECK(pbs.job_id_from_submit_output(capture("qsub1")) == "1.pbs-sim");
  for (const char* refused :
       {"qsub_badqueue", "qsub_ngpus", "qsub_badl", "qsub_badwalltime", "qsub_root", "qsub_noscript_file", "qsub_badW"})
    CHECK(pbs.job_id_from_submit_output(capture(refused)).empty());
  CHECK(capture("qsub_badqueue").err == "qsub: Unknown queue\n");
  CHECK(pbs.submit_command("/r/a.pbs").argv == std::vector<std::string>{"qsub", "-f", "/r/a.pbs"});
}

TEST_CASE("pbs: qstat -x -f -F json, running, held and finished jobs") {
  PbsScheduler pbs;
  const auto running = pbs.parse_status_output(capture("qstat_json_1"), {"2.pbs-sim"});
  REQUIRE(running);
  // The capture's own job, whatever its id: its state is R.
  bool saw_running = false;
  for (const auto& [id, s] : *running) {
    saw_running = saw_running || s.status == Status::Running;
    if (s.status == Status::Running) CHECK(s.nodes == "pbs-sim");  // exec_host "pbs-sim/0"
  }
  CHECK(saw_running);
  CHECK(hosts_of_exec_host("node1/0*2+node2/0*2+node1/1*2") == "node1,node2");
  CHECK(hosts_of_exec_host("").empty());

  const auto finished = pbs.parse_status_output(capture("qstat_x_json_finished"), {"1.pbs-sim"});
  REQUIRE(finished);
  CHECK(finished->at("1.pbs-sim").status == Status::Completed);
  CHECK(finished->at("1.pbs-sim").exit_code == 0);

  const auto held = pbs.parse_status_output(capture("qstat_json_two_ids"), {"9.pbs-sim"});
  REQUIRE(held);
  CHECK(held->at("9.pbs-sim").status == Status::Pending);
}

TEST_CASE("pbs: an unknown job id is unknown, never completed") {
  PbsScheduler pbs;
  const auto r = capture("qstat_x_json_unknown");
  CHECK(r.exit_code == 153);
  const auto s = pbs.parse_status_output(r, {"999.pbs-sim"});
  REQUIRE(s);
  CHECK(s->at("999.pbs-sim").status == Status::Unknown);
  CHECK(s->at("999.pbs-sim").reason == "qstat: Unknown Job Id 999.pbs-sim");
  CHECK(s->at("999.pbs-sim").forgotten);
  // No JSON at all (qstat missing, server down): no answer.
  CHECK_FALSE(pbs.parse_status_output(CommandResult{1, "", "qstat: cannot connect to server pbs (errno=111)\n"},
                                      {"1.pbs-sim"}));
}

TEST_CASE("pbs: the multi-id JSON bug is avoided with one query for all jobs") {
  PbsScheduler pbs;
  // The capture asked for two ids and got only the first: the parser would call the
  // second unknown, so ssim never asks for several ids by name.
  CHECK(pbs.status_command({"7.s"}) == std::vector<std::string>{"qstat", "-x", "-f", "-F", "json", "7.s"});
  CHECK(pbs.status_command({"7.s", "8.s"}) == std::vector<std::string>{"qstat", "-x", "-f", "-F", "json"});
  const auto s = pbs.parse_status_output(capture("qstat_json_two_ids"), {"9.pbs-sim", "5.pbs-sim"});
  CHECK(s->at("5.pbs-sim").status == Status::Unknown);
}

TEST_CASE("pbs: Exit_status values") {
  CHECK(status_from_pbs("F", 0, "").status == Status::Completed);
  const auto rc3 = status_from_pbs("F", 3, "Job run at ... and finished");
  CHECK(rc3.status == Status::Failed);
  CHECK(rc3.exit_code == 3);
  CHECK(status_from_pbs("F", 143, "").signal == 15);  // the shell's 128+n
  CHECK(status_from_pbs("F", 265, "").signal == 9);   // PBS's own 256+n
  const auto walltime = status_from_pbs("F", -29, "");
  CHECK(walltime.status == Status::Failed);
  CHECK_THAT(walltime.reason, Catch::Contains("walltime"));
  CHECK(status_from_pbs("F", std::nullopt, "").status == Status::Cancelled);  // deleted while queued
  CHECK(status_from_pbs("F", 0, "Job run at Sun Nov 22 at 08:27 on (pbs-sim:ncpus=1) and terminated by root@pbs-sim")
            .status == Status::Cancelled);
  CHECK(status_from_pbs("Q", std::nullopt, "Can Never Run: Insufficient amount of resource: ncpus").reason ==
        "pending: Can Never Run: Insufficient amount of resource: ncpus");
  CHECK(status_from_pbs("E", std::nullopt, "").status == Status::Running);
}

TEST_CASE("pbs: qdel of finished or unknown jobs is not a failure") {
  PbsScheduler pbs;
  CHECK(pbs.cancel_output_ok(capture("qdel_running")));
  CHECK(pbs.cancel_output_ok(capture("qdel_finished")));
  CHECK(pbs.cancel_output_ok(capture("qdel_unknown")));
  CHECK_FALSE(pbs.cancel_output_ok(CommandResult{1, "", "qdel: cannot connect to server pbs (errno=111)\n"}));
  CHECK(pbs.cancel_command({"1.s", "2.s"}) == std::vector<std::string>{"qdel", "1.s", "2.s"});
}

TEST_CASE("pbs: the allocation from PBS_JOBID and PBS_NODEFILE") {
  PbsScheduler pbs;
  auto env = [](const char* n) -> const char* {
    const std::string k = n;
    return k == "PBS_JOBID" ? "6.pbs-sim" : k == "PBS_NODEFILE" ? "/var/spool/pbs/aux/6.pbs-sim" : nullptr;
  };
  auto read = [](const std::string&) -> std::optional<std::string> { return std::string("n1\nn1\nn2\nn2\nn3\n"); };
  const auto a = pbs.current_allocation(env, read);
  REQUIRE(a);
  CHECK(a->job_id == "6.pbs-sim");
  CHECK(a->hosts == std::vector<std::string>{"n1", "n2", "n3"});
  CHECK(a->slots.at("n1") == 2);
  CHECK_FALSE(pbs.current_allocation([](const char*) -> const char* { return nullptr; }, read));
  CHECK_FALSE(pbs.allocation_requests());  // allocation: is refused with the alternatives
}

TEST_CASE("pbs: scripts ask for chunks, walltime, placement and dependencies") {
  BatchJob job;
  job.name = "train";
  job.settings.nodes = 2;
  job.settings.time = "1-02:03:04";
  job.settings.queue = "workq";
  job.settings.account = "acct42";
  job.settings.options = {{"m", spec::Text{"abe", {}}}};
  job.res.ntasks = 8;
  job.res.cpus_per_task = 2;
  job.res.gpus_per_task = 1;
  job.after = {"7.pbs-sim", "8.pbs-sim"};
  job.run_dir = "/runs/x y";
  job.out = "/runs/x y/train.out";
  job.err = "/runs/x y/train.err";
  job.setup = {"module load cuda"};
  job.command = {"python3", "it's"};
  const std::string s = pbs_script(job);
  CHECK(s ==
        "#!/bin/bash\n#PBS -N train\n#PBS -q workq\n#PBS -A acct42\n"
        "#PBS -l select=2:ncpus=8:mpiprocs=4:ngpus=4\n#PBS -l walltime=26:03:04\n#PBS -l place=scatter\n"
        "#PBS -W depend=afterok:7.pbs-sim:8.pbs-sim\n#PBS -o \"/runs/x y/train.out\"\n"
        "#PBS -e \"/runs/x y/train.err\"\n#PBS -k oed\n#PBS -m abe\n"
        "# Written by ssim. Runs in /runs/x y.\nset -e\ncd '/runs/x y'\n" +
            ssim::launch::setup_prelude({"module load cuda"}) + "exec python3 'it'\\''s'\n");
  job.whole_nodes = true;
  CHECK_THAT(pbs_script(job), Catch::Contains("#PBS -l select=2\n") && Catch::Contains("place=scatter:excl"));
  job.settings.options = {{"l", spec::Text{"mem=1gb\n#PBS -q evil", {}}}};
  CHECK_THROWS_AS(pbs_script(job), ssim::UsageError);
  job.settings.options = {{"l mem", spec::Text{"1gb", {}}}};  // a blank in the name would split it
  CHECK_THROWS_AS(pbs_script(job), ssim::UsageError);
}

TEST_CASE("pbs scripts: the user's -o, -e and chunk resources replace ssim's, and are not whole nodes") {
  BatchJob job = test::one_gpu_job();
  job.settings.options = {{"o", spec::Text{"/scratch/out", {}}}, {"l", spec::Text{"ngpus=1", {}}}};
  std::string s = pbs::pbs_script(job);
  CHECK_THAT(s, Catch::Contains("#PBS -o /scratch/out\n") && Catch::Contains("#PBS -e /r/train.err\n"));
  CHECK_THAT(s, !Catch::Contains("#PBS -o /r/train.out"));
  CHECK_THAT(s, Catch::Contains("#PBS -l select=1:ncpus=1:mpiprocs=1:ngpus=1\n"));  // one ngpus, the user's
  job.whole_nodes = true;  // the experiment as one job: one GPU on a shared host stays shared
  s = pbs::pbs_script(job);
  CHECK_THAT(s, Catch::Contains("place=scatter\n") && !Catch::Contains("excl"));
}
