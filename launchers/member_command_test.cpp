#include "launchers/member_command.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>

using namespace ssim;
using Argv = std::vector<std::string>;

namespace {
// Where `word` first appears in `argv` (argv.size() when it does not).
size_t at(const Argv& argv, const std::string& word) {
  return static_cast<size_t>(std::find(argv.begin(), argv.end(), word) - argv.begin());
}
}  // namespace

TEST_CASE("member command: every wrapper in the one documented order, inside out") {
  plan::Step s;
  s.name = "train";
  s.edit().exe = "python3";
  s.edit().args = {"train.py"};
  s.run_dir = "/e/train";
  s.edit().res.ntasks = 4;
  auto db = std::make_shared<spec::ColocatedDb>();
  s.edit().colocated_db = db;
  auto c = std::make_shared<plan::Container>();
  c->runtime = plan::ContainerRuntime::Apptainer;
  c->image = "/img.sif";
  s.edit().container = c;
  s.edit().smartredis = true;
  launchers::MemberWrapping w;
  w.rank_wrapper = launchers::RankAddress{false, "ib0"};
  w.recorder = launchers::StepRecorder{"/e/train", "{SLURM_JOB_ID}.{SLURM_STEP_ID}", "SLURM_PROCID"};
  w.launcher = launchers::RankLauncher::Srun;
  w.res = s.program->res;
  w.placement.nodes = {"n1", "n2"};
  w.context.allocation_id = "7";
  const Argv argv = launchers::member_command(s, "sup", w).argv;
  // rank launcher -> step recorder -> rank wrapper -> colocated database -> door -> container -> program
  const std::vector<size_t> order = {at(argv, "srun"),           at(argv, "--record-step"), at(argv, "--rank"),
                                     at(argv, "--colocated-db"), at(argv, "ssim-door"),     at(argv, "apptainer"),
                                     at(argv, "python3")};
  // In a container the colocated database is reached over loopback TCP: no node folder inside.
  CHECK(at(argv, "--tcp") < at(argv, "ssim-door"));
  CHECK(argv.front() == "srun");
  CHECK(std::is_sorted(order.begin(), order.end()));
  CHECK(order.back() < argv.size());
  CHECK(Argv(argv.end() - 3, argv.end()) == Argv{"/img.sif", "python3", "train.py"});
}

TEST_CASE("member command: what is not asked for is not there") {
  plan::Step s;
  s.name = "m";
  s.edit().exe = "/bin/true";
  s.run_dir = "/e/m";
  CHECK(launchers::member_command(s, "sup", {}).argv == Argv{"/bin/true"});
  CHECK(launchers::through_step_recorder("sup", {"/r", "{ID}", "RANKVAR"}, {"prog"}) ==
        Argv{"sup", "--record-step", "/r/.ssim-step", "--id", "{ID}", "--rank-var", "RANKVAR", "--", "prog"});
}
