// How ranks start inside a job, for every launch command.
#include <catch2/catch.hpp>

#include "launchers/ranks/rank_command.hpp"
#include "launchers/slurm/slurm_mpirun.hpp"

using namespace ssim;
using namespace ssim::launch;
using namespace ssim::launchers;
using V = std::vector<std::string>;

namespace {
plan::Resources tasks(int n, plan::MpiKind mpi = plan::MpiKind::Auto) {
  plan::Resources r;
  r.ntasks = n;
  r.mpi = mpi;
  return r;
}
}  // namespace

TEST_CASE("ranks: an explicit mpi: wins, auto and none take the scheduler's way") {
  CHECK(rank_launcher_for(plan::MpiKind::Auto, RankLauncher::Srun) == RankLauncher::Srun);
  CHECK(rank_launcher_for(plan::MpiKind::None, RankLauncher::Mpirun) == RankLauncher::Mpirun);
  CHECK(rank_launcher_for(plan::MpiKind::Aprun, RankLauncher::Mpirun) == RankLauncher::Aprun);
  CHECK(rank_launcher_for(plan::MpiKind::Mpiexec, RankLauncher::Srun) == RankLauncher::Mpiexec);
}

TEST_CASE("ranks: mpirun on placed hosts, and under Slurm through plm_slurm_args") {
  const Placement two{{"n2", "n3"}, false};
  const auto pbs = rank_command(RankLauncher::Mpirun, "sim", tasks(4), two, {"6.s", true}, {"./a", "x y"});
  CHECK(pbs.argv ==
        V{"mpirun", "-np", "4", "--allow-run-as-root", "--bind-to", "none", "--host", "n2:2,n3:2", "./a", "x y"});
  CHECK(pbs.env.empty());
  const auto one = rank_command(RankLauncher::Mpirun, "db", tasks(1), {{"n1"}, false}, {"6.s", false}, {"db"});
  CHECK(one.argv ==
        V{"mpirun", "-np", "1", "--bind-to", "none", "--host", "n1:1", "db"});  // a single task still lands on its host
  const auto slurm = rank_command(RankLauncher::Mpirun, "sim", tasks(4), two,
                                  {"12", false, "", false, slurm::slurm_mpirun_nodes}, {"./a"});
  CHECK(slurm.argv ==
        V{"mpirun", "-np", "4", "--bind-to", "none", "--mca", "plm_slurm_args", "--nodelist=n2,n3", "./a"});
  CHECK(std::find(slurm.env.begin(), slurm.env.end(),
                  std::pair<std::string, std::string>{"SLURM_JOB_NODELIST", "n2,n3"}) != slurm.env.end());
  CHECK(std::find(slurm.env.begin(), slurm.env.end(),
                  std::pair<std::string, std::string>{"SLURM_TASKS_PER_NODE", "2(x2)"}) != slurm.env.end());
}

TEST_CASE("ranks: aprun, jsrun, srun and plain") {
  auto r = tasks(8);
  r.cpus_per_task = 4;
  r.gpus_per_task = 1;
  const Placement two{{"nid1", "nid2"}, false};
  CHECK(rank_command(RankLauncher::Aprun, "s", r, two, {}, {"a"}).argv ==
        V{"aprun", "-n", "8", "-N", "4", "-d", "4", "-L", "nid1,nid2", "a"});
  CHECK(rank_command(RankLauncher::Jsrun, "s", r, two, {}, {"a"}).argv == V{"jsrun", "--nrs", "8", "--tasks_per_rs",
                                                                            "1", "--cpu_per_rs", "4", "--gpu_per_rs",
                                                                            "1", "--rs_per_host", "4", "a"});
  CHECK(rank_command(RankLauncher::Jsrun, "s", tasks(1), {}, {}, {"a"}).argv.back() == "a");
  const auto single = rank_command(RankLauncher::Jsrun, "s", tasks(1), {}, {}, {"a"}).argv;
  CHECK(std::find(single.begin(), single.end(), "--smpiargs=none") != single.end());
  CHECK(
      rank_command(RankLauncher::Srun, "s", tasks(1), {{"n1"}, false}, {"5", false}, {"a"}).argv ==
      V{"srun", "--jobid=5", "--job-name=s", "--nodelist=n1", "--nodes=1", "--ntasks=1", "--kill-on-bad-exit=1", "a"});
  CHECK(rank_command(RankLauncher::None, "s", tasks(1), {}, {}, {"a", "b"}).argv == V{"a", "b"});
}

TEST_CASE("ranks: node agents under mpirun, one per node in order, unbound, independent of each other") {
  const auto argv = mpirun_agent_command({"pn1", "pn2", "pn3"}, {"/s/ssim-supervise", "--agent", "/x/agents/1"}, true);
  CHECK(argv == V{"mpirun",
                  "-np",
                  "3",
                  "--allow-run-as-root",
                  "--host",
                  "pn1:1,pn2:1,pn3:1",
                  "--map-by",
                  "node",
                  "--bind-to",
                  "none",
                  "--mca",
                  "orte_abort_on_non_zero_status",
                  "0",
                  "--mca",
                  "orte_enable_recovery",
                  "1",
                  "/s/ssim-supervise",
                  "--agent",
                  "/x/agents/1",
                  "--nodes-by-rank",
                  "pn1,pn2,pn3"});
}
