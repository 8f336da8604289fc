// The LSF part of the batch layer, on outputs in LSF's documented formats.
#include <catch2/catch.hpp>

#include "launchers/lsf/bjobs_json.hpp"
#include "launchers/lsf/lsf_scheduler.hpp"
#include "launchers/lsf/lsf_script.hpp"
#include "tests/unit/fixture_file.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim;
using namespace ssim::launch;
using namespace ssim::launchers;
using namespace ssim::launchers::lsf;
using state::Status;

TEST_CASE("lsf: bsub's job id, also after 'Cannot connect' lines, refusals give none") {
  LsfScheduler lsf(false);
  CHECK(lsf.job_id_from_submit_output({0, test::fixture("lsf-outputs/bsub_ok.out"), ""}) == "4711");
  CHECK(lsf.job_id_from_submit_output({0, test::fixture("lsf-outputs/bsub_busy.out"), ""}) == "4712");
  CHECK(lsf.job_id_from_submit_output({255, "", test::fixture("lsf-outputs/bsub_refused.err")}).empty());
  const auto c = lsf.submit_command("/r/a.lsf");
  CHECK(c.argv == std::vector<std::string>{"bsub"});
  CHECK(c.stdin_path == "/r/a.lsf");
}

TEST_CASE("lsf: bjobs -json states, exit codes, kills and unknown ids") {
  LsfScheduler lsf(false);
  CHECK(lsf.status_command({"1", "2"}) ==
        std::vector<std::string>{"bjobs", "-o", "jobid stat exit_code exit_reason", "-json", "1", "2"});
  const auto s = lsf.parse_status_output({0, test::fixture("lsf-outputs/bjobs_mixed.json"), ""}, {});
  REQUIRE(s);
  CHECK(s->at("101").status == Status::Completed);
  CHECK(s->at("102").status == Status::Failed);
  CHECK(s->at("102").exit_code == 3);
  CHECK(s->at("103").status == Status::Cancelled);
  CHECK(s->at("103").signal == 2);
  CHECK(s->at("104").status == Status::Running);
  CHECK(s->at("105").status == Status::Pending);
  CHECK(s->at("106").status == Status::Failed);
  CHECK_THAT(s->at("106").reason, Catch::Contains("TERM_RUNLIMIT"));
  CHECK(s->at("999").status == Status::Unknown);
  // An error record without JOBID still names the job in its message.
  const auto e = parse_bjobs_json(R"({"COMMAND":"bjobs","JOBS":1,"RECORDS":[{"ERROR":"Job <77> is not found"}]})");
  CHECK(e->at("77").status == Status::Unknown);
  CHECK_FALSE(lsf.parse_status_output({255, "", "LSF is down\n"}, {"1"}));
}

TEST_CASE("lsf: bkill of finished or unknown jobs is not a failure") {
  LsfScheduler lsf(false);
  CHECK(lsf.cancel_output_ok({0, "Job <104> is being terminated\n", ""}));
  CHECK(lsf.cancel_output_ok({255, "", test::fixture("lsf-outputs/bkill_finished.err")}));
  CHECK(lsf.cancel_output_ok({255, "", test::fixture("lsf-outputs/bkill_unknown.err")}));
  CHECK_FALSE(lsf.cancel_output_ok({255, "", "LSF daemon (LIM) not responding ... still trying\n"}));
}

TEST_CASE("lsf: hosts from LSB_MCPU_HOSTS, CSM drops the launch node") {
  auto env = [](const char* n) -> const char* {
    const std::string k = n;
    return k == "LSB_JOBID" ? "42" : k == "LSB_MCPU_HOSTS" ? "batch1 1 c1 42 c2 42" : nullptr;
  };
  auto none = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  const auto plain = LsfScheduler(false).current_allocation(env, none);
  CHECK(plain->hosts == std::vector<std::string>{"batch1", "c1", "c2"});
  const auto csm = LsfScheduler(true).current_allocation(env, none);
  CHECK(csm->hosts == std::vector<std::string>{"c1", "c2"});
  CHECK(csm->slots.at("c2") == 42);
  CHECK(LsfScheduler(true).default_rank_launcher({}) == RankLauncher::Jsrun);
  CHECK(LsfScheduler(false).default_rank_launcher({}) == RankLauncher::Mpirun);
}

TEST_CASE("lsf: scripts, CSM and classic") {
  BatchJob job;
  job.name = "sim";
  job.settings.nodes = 2;
  job.settings.time = "01:30:00";
  job.settings.account = "PRJ123";
  job.res.ntasks = 8;
  job.res.gpus_per_task = 1;
  job.after = {"7", "9"};
  job.run_dir = "/r";
  job.out = "/r/sim.out";
  job.err = "/r/sim.err";
  job.command = {"a.out"};
  const std::string csm = lsf_script(job, true);
  CHECK_THAT(csm, Catch::StartsWith("#!/bin/bash\n#BSUB -J sim\n#BSUB -P PRJ123\n#BSUB -W 1:30\n#BSUB -nnodes 2\n"
                                    "#BSUB -gpu num=1/task\n#BSUB -w \"done(7) && done(9)\"\n#BSUB -o /r/sim.out\n"
                                    "#BSUB -e /r/sim.err\n#BSUB -cwd /r\n"));
  const std::string classic = lsf_script(job, false);
  CHECK_THAT(classic, Catch::Contains("#BSUB -n 8\n#BSUB -R \"span[ptile=4]\"\n"));
  job.settings.time = "00:00:30";
  CHECK_THAT(lsf_script(job, false), Catch::Contains("#BSUB -W 0:01\n"));  // minutes, rounded up
}

TEST_CASE("lsf scripts: the user's -o, -e and -gpu replace ssim's, and are not whole hosts") {
  BatchJob job = test::one_gpu_job();
  job.settings.options = {{"eo", spec::Text{"/scratch/err", {}}}, {"gpu", spec::Text{"num=1:mode=shared", {}}}};
  std::string s = lsf_script(job, false);
  CHECK_THAT(s, Catch::Contains("#BSUB -o /r/train.out\n") && !Catch::Contains("#BSUB -e /r/train.err"));
  CHECK_THAT(s, !Catch::Contains("num=1/task"));  // one -gpu: the user's
  job.whole_nodes = true;
  CHECK_THAT(lsf_script(job, false), !Catch::Contains("#BSUB -x"));
}
