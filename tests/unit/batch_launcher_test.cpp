// The shared batch launcher driven through submit, poll and cancel for each scheduler,
// with recorded answers through the CommandRunner seam: no process is started.
#include <catch2/catch.hpp>

#include "lib/util/layout.hpp"
#include "lib/state/status_file.hpp"

#include <atomic>
#include <deque>
#include <fstream>
#include <future>
#include <thread>

#include "launchers/batch/batch_launcher.hpp"
#include "tests/unit/fake_launcher.hpp"
#include "launchers/batch/merge_status.hpp"
#include "launchers/job_files.hpp"
#include "launchers/lsf/lsf_scheduler.hpp"
#include "launchers/pbs/pbs_scheduler.hpp"
#include "launchers/registry.hpp"
#include "launchers/slurm/slurm_scheduler.hpp"
#include "tests/unit/fixture_file.hpp"
#include "tests/unit/helpers.hpp"
#include "tests/unit/recorded_runner.hpp"

using namespace ssim;
using namespace ssim::launch;
using namespace ssim::launchers;
using state::Status;

namespace {

using test::RecordedRunner;

struct Rig {
  test::TempDir dir;
  test::FakeClock clock;  // the launcher's: moved by the test
  std::vector<std::vector<std::string>> calls;
  RecordedRunner* runner;
  std::unique_ptr<BatchLauncher> launcher;
  plan::Plan plan;
  explicit Rig(std::unique_ptr<Scheduler> scheduler) {
    auto r = std::make_unique<RecordedRunner>(&calls);
    runner = r.get();
    launcher = std::make_unique<BatchLauncher>(std::move(scheduler), std::move(r), "/opt/ssim/ssim-supervise");
    launcher->set_clock(clock);
    plan = test::plan_of(
        "experiment: {name: b}\nmodels:\n"
        "  - {name: a, exe: /bin/true, batch: {nodes: 1}}\n"
        "  - {name: c, exe: /bin/true, batch: {nodes: 1}}\n",
        dir.path.string());
    for (auto& s : plan.steps) std::filesystem::create_directories(s.run_dir);
    launcher->set_allocation(plan, Allocation{});
  }
  std::vector<JobRef> submit_both() {
    std::vector<LaunchRequest> reqs;
    for (const auto& s : plan.steps)
      reqs.push_back({s.name, s.run_dir, launcher->command(s), plan::step_env(s), s.program->batch});
    return launcher->start(reqs);
  }
  void wait(double seconds) { clock.sleep(std::chrono::milliseconds(static_cast<long>(seconds * 1000))); }
  int count(const std::string& program) const {
    int n = 0;
    for (const auto& c : calls) n += c[0] == program;
    return n;
  }
};

// How a job ended, as its wrapper would have written it.
void write_exit(const std::string& run_dir, int exit_code, double start = 0, double end = 0) {
  state::StatusFile s;
  s.exited = true, s.exit_code = exit_code, s.start = start, s.end = end;
  std::ofstream(state::status_file_path(run_dir)) << state::encode_status_file(s);
}

}  // namespace

TEST_CASE("batch launcher: PBS jobs through qsub, one qstat per poll, qdel") {
  Rig rig(std::make_unique<pbs::PbsScheduler>());
  rig.runner->answers["qsub"] = {{0, "11.pbs-sim\n", ""}, {0, "12.pbs-sim\n", ""}};
  const auto refs = rig.submit_both();
  REQUIRE(refs.size() == 2);
  CHECK(refs[0].id.str() == "job:11.pbs-sim");
  CHECK(refs[1].id.str() == "job:12.pbs-sim");
  std::ifstream script(rig.plan.steps[0].run_dir + "/a.pbs");
  std::string text((std::istreambuf_iterator<char>(script)), {});
  CHECK_THAT(text, Catch::Contains("#PBS -N a\n") &&
                       Catch::Contains("exec /opt/ssim/ssim-supervise --wrap " + rig.plan.steps[0].run_dir +
                                       "/.ssim-status.json -- /bin/true\n"));

  // Job 11 running, job 12 forgotten by a server without job history but its exit
  // status is on disk; then 11 forgotten without one: failed, never completed.
  rig.runner->answers["qstat"] = {
      {0, R"({"Jobs":{"11.pbs-sim":{"job_state":"R"}}})", ""},
  };
  write_exit(rig.plan.steps[1].run_dir, 4, 1, 2);
  auto s = rig.launcher->poll(refs);
  CHECK(s[0].status == Status::Running);
  CHECK(s[0].native_id == "11.pbs-sim");
  CHECK(s[1].status == Status::Failed);
  CHECK(s[1].exit_code == 4);
  CHECK(rig.count("qstat") == 1);
  CHECK(rig.calls.back() == std::vector<std::string>{"qstat", "-x", "-f", "-F", "json"});

  rig.runner->answers["qstat"] = {{153, R"({"timestamp":1})", "qstat: Unknown Job Id 11.pbs-sim\n"}};
  rig.wait(1);
  s = rig.launcher->poll(std::span(refs).first(1));
  // One answer that does not list a job it saw a moment ago is not its end.
  CHECK(s[0].status == Status::Pending);
  CHECK_THAT(s[0].reason, Catch::Contains("not listed by qstat"));
  CHECK(rig.launcher->scheduler_queries() == 2);
  rig.wait(16);
  s = rig.launcher->poll(std::span(refs).first(1));
  CHECK(s[0].status == Status::Failed);
  CHECK_THAT(s[0].reason, Catch::Contains("no longer knows job 11.pbs-sim"));
  CHECK(rig.launcher->scheduler_queries() == 3);

  rig.runner->answers["qdel"] = {{35, "", "qdel: Job has finished 11.pbs-sim\n"}};
  rig.launcher->cancel(refs, false);
  CHECK(rig.count("qdel") == 1);  // benign: not retried
  CHECK(rig.calls.back() == std::vector<std::string>{"qdel", "11.pbs-sim", "12.pbs-sim"});
}

TEST_CASE("batch launcher: LSF jobs through bsub < script, bjobs, bkill") {
  Rig rig(std::make_unique<lsf::LsfScheduler>(false));
  rig.runner->answers["bsub"] = {{0, "Job <7> is submitted to default queue <normal>.\n", ""},
                                 {255, "", "Service class does not exist. Job not submitted.\n"}};
  const auto refs = rig.submit_both();
  CHECK(refs[0].id.str() == "job:7");
  CHECK(refs[1].id.str() == "0");  // refused: failed through its status file
  rig.runner->answers["bjobs"] = {
      {0, R"({"COMMAND":"bjobs","JOBS":1,"RECORDS":[{"JOBID":"7","STAT":"DONE","EXIT_CODE":"","EXIT_REASON":""}]})",
       ""}};
  write_exit(rig.plan.steps[0].run_dir, 0);
  const auto s = rig.launcher->poll(refs);
  CHECK(s[0].status == Status::Completed);
  CHECK(s[1].status == Status::Failed);
  CHECK_THAT(s[1].reason, Catch::Contains("Job not submitted"));
  CHECK(rig.count("bjobs") == 1);
  CHECK(rig.calls.back() == std::vector<std::string>{"bjobs", "-o", "jobid stat exit_code exit_reason", "-json", "7"});
  rig.runner->answers["bkill"] = {{0, "Job <7> is being terminated\n", ""}};
  rig.launcher->cancel(std::span(refs).first(1), false);
  CHECK(rig.calls.back() == std::vector<std::string>{"bkill", "7"});
}

TEST_CASE("batch launcher: Slurm jobs, sacct lag is pending, accounting off switches to squeue once") {
  Rig rig(std::make_unique<slurm::SlurmScheduler>());
  rig.runner->answers["sbatch"] = {{0, "31\n", ""}, {0, "32;cluster\n", ""}};
  const auto refs = rig.submit_both();
  CHECK(refs[1].id.str() == "job:32");
  rig.runner->answers["sacct"] = {{0, "31|RUNNING|0:0\n", ""}};
  auto s = rig.launcher->poll(refs);
  CHECK(s[0].status == Status::Running);
  CHECK(s[1].status == Status::Pending);  // not in accounting yet
  rig.runner->answers["sacct"] = {{1, "", "sacct: error: Slurm accounting storage is disabled\n"}};
  rig.runner->answers["squeue"] = {{0, "31|COMPLETED|None\n32|FAILED|NonZeroExitCode\n", ""}};
  rig.wait(1);
  s = rig.launcher->poll(refs);
  CHECK(s[0].status == Status::Completed);
  CHECK(s[1].status == Status::Failed);
  rig.wait(1);
  s = rig.launcher->poll(refs);
  CHECK(rig.count("sacct") == 2);  // never asked again once it said accounting is off
  CHECK(rig.count("squeue") == 2);
  CHECK(rig.launcher->scheduler_queries() == 3);
}

TEST_CASE("batch launcher: polls with nothing to ask the scheduler issue no query") {
  Rig rig(std::make_unique<pbs::PbsScheduler>());
  CHECK(rig.launcher->poll({}).empty());
  CHECK(rig.launcher->scheduler_queries() == 0);
}

TEST_CASE("batch launcher: steps inside a PBS job go to their placed hosts") {
  test::TempDir dir;
  std::vector<std::vector<std::string>> calls;
  BatchLauncher l(std::make_unique<pbs::PbsScheduler>(), std::make_unique<RecordedRunner>(&calls), "/s/ssim-supervise");
  const auto plan = test::plan_of(
      "experiment: {name: seed}\norchestrator: {}\n"
      "ensembles:\n  - {name: p, exe: sim, replicas: 2, run: {ntasks: 2, exclusive: true}}\n"
      "models:\n  - {name: t, exe: train, run: {ntasks: 3}}\n",
      dir.path.string());
  l.set_allocation(plan, Allocation{"6.pbs-sim", {"h1", "h2", "h3", "h4", "h5"}, {{"h4", 2}, {"h5", 2}}});
  // Whole nodes: Open MPI's own binding stays (it is what a user of mpirun expects).
  // Each rank through the rank wrapper (RANK, MASTER_ADDR..., its end recorded).
  auto ranks = [](const plan::Step& s, int n, const std::string& exe) {
    return std::vector<std::string>{"/s/ssim-supervise",
                                    "--rank",
                                    "--size",
                                    std::to_string(n),
                                    "--ends",
                                    s.run_dir + "/.ssim-rank-ends",
                                    "--master",
                                    s.run_dir + "/.ssim-rank0",
                                    "--",
                                    exe};
  };
  auto with = [](std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  // What ssim gives the step reaches its ranks on the other hosts (-x: Open MPI's daemons
  // there start them with their own environment).
  auto forwarded = [](std::vector<std::string> names) {
    // plan::launch_env's additions (the module's PYTHONPATH where there is one, the
    // experiment's id, the attempt), then the PATH its setup lines leave.
    if (!ssim::python_package_dir().empty()) names.push_back("PYTHONPATH");
    names.insert(names.end(), {"SSIM_EXPERIMENT_ID", "SSIM_ATTEMPT", "PATH"});
    if (ssim::python_package_dir().empty()) names.push_back("PYTHONPATH");
    if (std::getenv("LD_LIBRARY_PATH")) names.push_back("LD_LIBRARY_PATH");
    std::vector<std::string> x;
    for (const auto& n : names) x.insert(x.end(), {"-x", n});
    return x;
  };
  const std::vector<std::string> ssim_vars = {"SSDB", "SSDB_PASSWORD", "SSIM_EXPERIMENT", "SSIM_ENTITY",
                                              "SSIM_RUN_DIR"};
  auto member_vars = ssim_vars;
  member_vars.insert(member_vars.end(), {"SSIM_REPLICA", "SSIM_MEMBER_INDEX"});
  CHECK(l.command(plan.steps[0]) ==
        with(with({"mpirun", "-np", "2", "--allow-run-as-root", "--host", "h2:2"}, forwarded(member_vars)),
             ranks(plan.steps[0], 2, "sim")));
  // Packed: the nodes the pool gave it when it starts, its tasks spread over them, and
  // unbound (each launch would bind its ranks to the same first cores of a shared node).
  REQUIRE(l.pool(plan).size() == 2);
  CHECK(l.pool(plan)[1].cpus == 2);
  CHECK(l.packs(plan.steps[2]));
  CHECK_FALSE(l.packs(plan.steps[0]));
  CHECK(l.command_on(plan.steps[2], Grant{{"h4", "h5"}, {2, 1}, {{}, {}}}) ==
        with(with({"mpirun", "-np", "3", "--allow-run-as-root", "--bind-to", "none", "--host", "h4:2,h5:2"},
                  forwarded(ssim_vars)),
             ranks(plan.steps[2], 3, "train")));
  CHECK(l.database_command(0, "/db", {"db"}) == std::vector<std::string>{"mpirun", "-np", "1", "--allow-run-as-root",
                                                                         "--bind-to", "none", "--host", "h1:1", "db"});
  CHECK(calls.empty());
}

TEST_CASE("batch launcher: Slurm steps record their own JOB.STEP") {
  std::vector<std::vector<std::string>> calls;
  BatchLauncher l(std::make_unique<slurm::SlurmScheduler>(), std::make_unique<RecordedRunner>(&calls), "/s/sup");
  // agent: false: a step of its own (a one-task step otherwise goes through its node's agent).
  const auto plan = test::plan_of("experiment: {name: x}\nmodels:\n  - {name: m, exe: prog, run: {agent: false}}\n");
  l.set_allocation(plan, Allocation{"12", {"n1"}, {}});
  // A packed step: only its own CPUs and none of the job's memory, so the next one starts too.
  CHECK(l.command_on(plan.steps[0], Grant{{"n1"}, {1}, {{}}}) ==
        std::vector<std::string>{"srun", "--jobid=12", "--job-name=m", "--nodelist=n1", "--nodes=1", "--ntasks=1",
                                 "--kill-on-bad-exit=1", "--exact", "--mem=0", "/s/sup", "--record-step",
                                 plan.steps[0].run_dir + "/.ssim-step", "--id", "{SLURM_JOB_ID}.{SLURM_STEP_ID}",
                                 "--rank-var", "SLURM_PROCID", "--", "prog"});
}

TEST_CASE("batch launcher: Slurm runs one-task packed steps through node agents started by one srun") {
  std::vector<std::vector<std::string>> calls;
  BatchLauncher l(std::make_unique<slurm::SlurmScheduler>(), std::make_unique<RecordedRunner>(&calls), "/s/sup");
  const auto plan = test::plan_of(
      "experiment: {name: x}\nmodels:\n  - {name: m, exe: prog, args: [a]}\n"
      "  - {name: two, exe: prog, run: {ntasks: 2}}\n  - {name: whole, exe: prog, run: {exclusive: true}}\n");
  l.set_allocation(plan, Allocation{"12", {"n1", "n2"}, {}});
  // Its node's agent starts it: the program itself, no srun.
  CHECK(l.command_on(plan.steps[0], Grant{{"n2"}, {1}, {{}}}) == std::vector<std::string>{"prog", "a"});
  CHECK(l.command(plan.steps[0]) == std::vector<std::string>{"prog", "a"});  // what --dry-run shows
  // Several tasks (MPI by default) and whole nodes stay steps of their own.
  CHECK(l.command_on(plan.steps[1], Grant{{"n2"}, {2}, {{}}}).front() == "srun");
  CHECK(l.command(plan.steps[2]).front() == "srun");
  // The agents: one task per node, overlapping every step, not killed with a task.
  const auto agents = l.scheduler().agent_command("12", {"n1", "n2"}, {"/s/sup", "--agent", "/d"});
  REQUIRE(agents);
  CHECK(*agents == std::vector<std::string>{"srun", "--jobid=12", "--job-name=ssim-agents", "--nodelist=n1,n2",
                                            "--nodes=2", "--ntasks=2", "--ntasks-per-node=1", "--overlap", "--mem=0",
                                            "--kill-on-bad-exit=0", "--mpi=none", "/s/sup", "--agent", "/d"});
  CHECK(calls.empty());
}

TEST_CASE("batch launcher: PBS and LSF start their agents with one mpirun, CSM systems have none") {
  const auto pbs = pbs::PbsScheduler().agent_command("1", {"h1", "h2"}, {"x"});
  REQUIRE(pbs);
  CHECK(pbs->front() == "mpirun");
  CHECK(std::find(pbs->begin(), pbs->end(), "h1:1,h2:1") != pbs->end());
  CHECK(pbs->back() == "h1,h2");  // --nodes-by-rank: each agent knows its node by ssim's name
  const auto lsf = lsf::LsfScheduler(false).agent_command("1", {"h1"}, {"x"});
  REQUIRE(lsf);
  CHECK(lsf->front() == "mpirun");
  // jsrun's resource sets hold their CPUs, and the launch node is no compute node.
  CHECK_FALSE(lsf::LsfScheduler(true).agent_command("1", {"h1"}, {"x"}));
}

TEST_CASE("batch launcher: the merge never calls an unknown job completed") {
  JobStatus unknown;
  unknown.status = Status::Unknown;
  const auto gone = merge_job(unknown, std::nullopt, false, "pbs", "1.s");
  CHECK(gone.status == Status::Failed);
  JobStatus running;
  running.status = Status::Running;
  CHECK(merge_job(unknown, running, false, "pbs", "1.s").status == Status::Failed);
  CHECK(merge_job(std::nullopt, std::nullopt, false, "slurm", "3").status == Status::Pending);
  CHECK(merge_job(unknown, std::nullopt, true, "pbs", "1.s").status == Status::Cancelled);
  JobStatus timeout;
  timeout.status = Status::Failed;
  timeout.reason = "time limit reached (TIMEOUT)";
  JobStatus killed;
  killed.status = Status::Failed;
  killed.signal = 15;
  CHECK(merge_job(timeout, killed, false, "slurm", "3").reason == "time limit reached (TIMEOUT)");
  // A step: the scheduler's terminal word wins; while the launch command runs, so does its running.
  JobStatus local_done;
  local_done.status = Status::Completed;
  local_done.exit_code = 0;
  CHECK(merge_step(local_done, running).status == Status::Completed);  // accounting lags
  CHECK(merge_step(running, timeout).status == Status::Failed);
  CHECK(merge_step(running, unknown).status == Status::Running);
}

TEST_CASE("registry: auto finds the scheduler whose job we are in, one line per launcher") {
  auto none = [](const char*) -> const char* { return nullptr; };
  auto in = [](const char* var) {
    return [var](const char* n) -> const char* { return std::string(n) == var ? "12" : nullptr; };
  };
  CHECK(resolve_launcher("auto", none) == "local");
  CHECK(resolve_launcher("auto", in("SLURM_JOB_ID")) == "slurm");
  CHECK(resolve_launcher("auto", in("PBS_JOBID")) == "pbs");
  CHECK(resolve_launcher("auto", in("LSB_JOBID")) == "lsf");
  CHECK(resolve_launcher("local", in("SLURM_JOB_ID")) == "local");
  CHECK(launcher_names() == std::vector<std::string>{"auto", "local", "slurm", "pbs", "lsf"});
  CHECK(submit_launcher([](const std::string& p) { return p == "qsub"; }) == "pbs");
  CHECK(submit_launcher([](const std::string&) { return false; }).empty());
  // Several schedulers installed: auto cannot guess, and says which it found.
  CHECK_THROWS_WITH(submit_launcher([](const std::string& p) { return p == "qsub" || p == "bsub"; }),
                    Catch::Contains("several schedulers can take jobs here: pbs (qsub), lsf (bsub)"));
  for (const auto& name : {"local", "slurm", "pbs", "lsf"}) CHECK(make_launcher(name)->name() == name);
}

TEST_CASE("batch launcher: PBS with job history off, as the real server's default") {
  Rig rig(std::make_unique<pbs::PbsScheduler>());
  rig.runner->answers["qsub"] = {{0, "66.pbs-sim\n", ""}, {0, "67.pbs-sim\n", ""}};
  const auto refs = rig.submit_both();
  const auto histoff = test::recorded("pbs-captures-s3", "histoff_qstat_x_json_all");
  const auto listed = test::recorded("pbs-captures-s3", "histoff_qstat_json_all_no_x");  // 66 running
  rig.runner->answers["qstat"] = {histoff, listed};
  auto s = rig.launcher->poll(refs);
  // Asked again without -x in the same poll: 66 runs; 67 is not listed (ended or not
  // yet seen), which is not a failure.
  CHECK(rig.calls[rig.calls.size() - 2] == std::vector<std::string>{"qstat", "-x", "-f", "-F", "json"});
  CHECK(rig.calls.back() == std::vector<std::string>{"qstat", "-f", "-F", "json"});
  CHECK(s[0].status == Status::Running);
  CHECK(s[1].status == Status::Pending);
  // 67's supervisor wrote how it ended: that is its outcome, at once.
  write_exit(rig.plan.steps[1].run_dir, 0, 1, 2);
  rig.wait(1);
  s = rig.launcher->poll(refs);
  CHECK(s[1].status == Status::Completed);
  CHECK(rig.calls.back() == std::vector<std::string>{"qstat", "-f", "-F", "json"});  // never -x again
  // 66 still runs though qstat -x says nothing: ssim stop still qdels it.
  rig.runner->answers["qdel"] = {{0, "", ""}};
  rig.launcher->cancel(std::span(refs).first(1), false);
  CHECK(rig.calls.back() == std::vector<std::string>{"qdel", "66.pbs-sim"});
}

TEST_CASE("batch launcher: the scheduler is asked at a server's pace, at once about a new job") {
  Rig rig(std::make_unique<pbs::PbsScheduler>());
  rig.runner->answers["qsub"] = {{0, "11.pbs-sim\n", ""}, {0, "12.pbs-sim\n", ""}};
  const auto refs = rig.submit_both();
  rig.runner->answers["qstat"] = {{0, R"({"Jobs":{"11.pbs-sim":{"job_state":"R"}}})", ""}};
  rig.launcher->poll(std::span(refs).first(1));
  CHECK(rig.count("qstat") == 1);
  for (int i = 0; i < 5; ++i) {
    rig.wait(0.1);
    CHECK(rig.launcher->poll(std::span(refs).first(1))[0].status == Status::Running);
  }
  CHECK(rig.count("qstat") == 1);  // the answer stands for a second
  rig.launcher->poll(refs);        // 12 is new to it: asked at once
  CHECK(rig.count("qstat") == 2);
  // Nothing changes: the pace slows down, to at most every 10 s.
  for (int i = 0; i < 120; ++i) {
    rig.wait(1);
    rig.launcher->poll(refs);
  }
  CHECK(rig.count("qstat") < 40);
  CHECK(rig.count("qstat") >= 12);
}

TEST_CASE("batch launcher: a job the scheduler can never run fails at once and is deleted") {
  Rig rig(std::make_unique<pbs::PbsScheduler>());
  rig.runner->answers["qsub"] = {{0, "20.pbs-sim\n", ""}, {0, "21.pbs-sim\n", ""}};
  const auto refs = rig.submit_both();
  rig.runner->answers["qstat"] = {
      {0,
       R"j({"Jobs":{"20.pbs-sim":{"job_state":"Q","comment":"Can Never Run: Insufficient amount of resource: ncpus (R: 64 A: 32 T: 32)"},
                                          "21.pbs-sim":{"job_state":"Q","comment":"Not Running: Insufficient amount of resource: ncpus"}}})j",
       ""}};
  rig.runner->answers["qdel"] = {{0, "", ""}};
  const auto s = rig.launcher->poll(refs);
  CHECK(s[0].status == Status::Failed);
  CHECK_THAT(s[0].reason, Catch::Contains("pbs says it can never run: Insufficient amount of resource: ncpus (R: 64"));
  CHECK(s[1].status == Status::Pending);  // it only waits
  CHECK(rig.calls.back() == std::vector<std::string>{"qdel", "20.pbs-sim"});
  // Its outcome is on disk, for every later reader.
  const auto later = read_job_status(rig.plan.steps[0].run_dir);
  REQUIRE(later);
  CHECK(later->status == Status::Failed);
  CHECK_THAT(later->reason, Catch::Contains("can never run"));
}

namespace {
// Holds every command until the test lets it go: a scheduler that answers slowly.
class HeldRunner : public CommandRunner {
 public:
  std::promise<void> go;
  std::shared_future<void> released = go.get_future().share();
  std::atomic<int> calls{0};
  CommandResult answer;
  CommandResult run(const std::vector<std::string>&, std::chrono::milliseconds, const std::string&) override {
    ++calls;
    released.wait();
    return answer;
  }
};
}  // namespace

TEST_CASE("batch launcher: a slow status query in the background never holds up a poll") {
  auto r = std::make_unique<HeldRunner>();
  HeldRunner* runner = r.get();
  runner->answer = CommandResult{0, "12.0|FAILED|3:0\n", ""};
  BatchLauncher l(std::make_unique<slurm::SlurmScheduler>(), std::move(r), "/s/sup");
  l.set_queries_in_background(true);
  test::TempDir dir;
  std::filesystem::create_directories(dir.path / "m");
  std::ofstream(dir.path / "m/.ssim-step") << "12.0\n";  // the step recorded its id
  const std::vector<JobRef> jobs = {{state::JobId::supervisor(4242, "1", "elsewhere"), "m", (dir.path / "m").string()}};
  const auto t0 = std::chrono::steady_clock::now();
  auto s = l.poll(jobs);  // the query goes out and hangs
  for (int i = 0; i < 500 && runner->calls.load() == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // its thread starts, bounded
  s = l.poll(jobs);                                             // still hanging: the poll answers from what it knows
  s = l.poll(jobs);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
  CHECK(runner->calls.load() == 1);  // one query at a time
  CHECK(s[0].status != Status::Failed);
  runner->go.set_value();  // the answer arrives
  for (int i = 0; i < 500 && s[0].status != Status::Failed; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // polls until the answer is taken, bounded
    s = l.poll(jobs);
  }
  CHECK(s[0].status == Status::Failed);
  CHECK(s[0].exit_code == 3);
}

TEST_CASE("batch launcher: nodes Slurm drains or downs during the run are out of use, with why") {
  std::vector<std::vector<std::string>> calls;
  auto runner = std::make_unique<RecordedRunner>(&calls);
  // sinfo's own lines (captured on the test cluster after scontrol update state=drain).
  runner->answers["sinfo"] = {{0, "n1|alloc|none\nn2|alloc|none\n", ""},
                              {0, "n1|alloc|none\nn2|drng|bad dimm\n", ""},
                              {0, "n1|down*|Not responding\nn2|drain|bad dimm\n", ""}};
  test::FakeClock clock;
  BatchLauncher l(std::make_unique<slurm::SlurmScheduler>(), std::move(runner), "/s/sup");
  l.set_clock(clock);
  const auto plan = test::plan_of("experiment: {name: x}\nmodels:\n  - {name: m, exe: prog}\n");
  l.set_allocation(plan, Allocation{"12", {"n1", "n2"}, {}});
  l.poll({});
  CHECK(l.lost_nodes().empty());
  REQUIRE(calls.size() == 1);
  CHECK(calls[0] == std::vector<std::string>{"sinfo", "--noheader", "--Node", "--nodes=n1,n2", "-o", "%N|%t|%E"});
  l.poll({});
  CHECK(calls.size() == 1);  // asked again only after 10 s
  clock.sleep(std::chrono::seconds(10));
  l.poll({});
  CHECK(l.lost_nodes() == std::map<std::string, std::string>{{"n2", "drained by slurm (bad dimm)"}});
  clock.sleep(std::chrono::seconds(10));
  l.poll({});
  CHECK(l.lost_nodes() == std::map<std::string, std::string>{{"n1", "down by slurm (Not responding)"},
                                                             {"n2", "drained by slurm (bad dimm)"}});
}

TEST_CASE("batch launcher: without packed steps, node states are never asked") {
  std::vector<std::vector<std::string>> calls;
  BatchLauncher l(std::make_unique<slurm::SlurmScheduler>(), std::make_unique<RecordedRunner>(&calls), "/s/sup");
  const auto plan = test::plan_of("experiment: {name: x}\nmodels:\n  - {name: m, exe: prog, batch: {nodes: 1}}\n");
  l.set_allocation(plan, Allocation{});
  l.poll({});
  CHECK(calls.empty());
}
