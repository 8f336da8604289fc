#include <catch2/catch.hpp>

#include <algorithm>

#include "launchers/local/local_command.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim;

namespace {
// What each of several ranks starts through (launchers/ranks/rank_wrapper.hpp).
std::vector<std::string> wrapper(const std::string& supervisor, int ranks, std::vector<std::string> more = {}) {
  std::vector<std::string> w = {supervisor,           "--rank",   "--size",        std::to_string(ranks), "--ends",
                                "/r/.ssim-rank-ends", "--master", "/r/.ssim-rank0"};
  w.insert(w.end(), more.begin(), more.end());
  w.push_back("--");
  return w;
}
std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
}  // namespace

TEST_CASE("local commands: plain, mpirun with root and oversubscribe flags") {
  plan::Step s;
  s.edit().exe = "sim";
  s.edit().args = {"a b"};
  s.run_dir = "/r";
  launchers::HostFacts user{false, 4}, root{true, 2};
  CHECK(launchers::local_command(s, user) == std::vector<std::string>{"sim", "a b"});
  s.edit().res.ntasks = 4;  // auto with several tasks means mpirun
  const auto ranks = wrapper("ssim-supervise", 4, {"--loopback"}) + std::vector<std::string>{"sim", "a b"};
  CHECK(launchers::local_command(s, user) ==
        std::vector<std::string>{"mpirun", "-np", "4", "--bind-to", "none"} + ranks);
  CHECK(launchers::local_command(s, root) ==
        std::vector<std::string>{"mpirun", "-np", "4", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none"} +
            ranks);
  s.edit().res.mpi = plan::MpiKind::None;
  CHECK(launchers::local_command(s, root) == std::vector<std::string>{"sim", "a b"});
  s.edit().res.mpi = plan::MpiKind::Mpiexec;
  s.edit().res.ntasks = 1;
  s.edit().res.launcher_args = {{"bind-to", "none"}};
  CHECK(launchers::local_command(s, user) ==
        std::vector<std::string>{"mpiexec", "-np", "1", "--bind-to", "none", "sim", "a b"});
}

TEST_CASE("with GPUs under mpirun each rank starts through the rank wrapper, which gives it its own") {
  plan::Step s;
  s.edit().exe = "train";
  s.run_dir = "/r";
  s.edit().res.ntasks = 2;
  s.edit().res.gpus_per_task = 1;
  s.edit().res.mpi = plan::MpiKind::Mpirun;
  const launchers::HostFacts user{false, 8};
  CHECK(launchers::local_command(s, user, "/x/ssim-supervise") ==
        std::vector<std::string>{"mpirun", "-np", "2", "--bind-to", "none"} +
            wrapper("/x/ssim-supervise", 2, {"--loopback", "--gpus", "1"}) + std::vector<std::string>{"train"});
}

TEST_CASE("the rank wrapper is told the entity's own MASTER_ADDR/MASTER_PORT, never the shell's") {
  plan::Step s;
  s.edit().exe = "sim";
  s.run_dir = "/r";
  s.edit().res.ntasks = 2;
  launchers::HostFacts user{false, 4};
  auto env = std::make_shared<plan::SharedEnv>();
  env->from_file = {{"MASTER_PORT", "1"}, {"OTHER", "x"}, {"MASTER_PORT", "29877"}};  // the entity's value last
  s.shared_env = env;
  CHECK(launchers::local_command(s, user) ==
        std::vector<std::string>{"mpirun", "-np", "2", "--bind-to", "none"} +
            wrapper("ssim-supervise", 2, {"--master-port", "29877", "--loopback"}) + std::vector<std::string>{"sim"});
}

TEST_CASE("hosts: on the local launcher give mpirun each host with its share of the slots") {
  plan::Step s;
  s.edit().exe = "sim";
  s.run_dir = "/r";
  s.edit().res.ntasks = 4;
  s.edit().res.hosts = {"a", "b"};
  const launchers::HostFacts user{false, 8};
  // Ranks on other hosts: rank 0 says its address as they reach it, not loopback.
  CHECK(launchers::local_command(s, user) ==
        std::vector<std::string>{"mpirun", "-np", "4", "--bind-to", "none", "--host", "a:2,b:2"} +
            wrapper("ssim-supervise", 4) + std::vector<std::string>{"sim"});
}

TEST_CASE("mpirun ranks are left unbound unless the step has its nodes to itself or asks for a binding") {
  // Each mpirun binds its ranks from core 0: two 4-rank models on an 8-core machine would
  // share cores 0-3 while 4-7 idle.
  plan::Step s;
  s.edit().exe = "sim";
  s.edit().res.ntasks = 4;
  const launchers::HostFacts user{false, 8};
  const auto has_bind_none = [](const std::vector<std::string>& argv) {
    for (size_t i = 0; i + 1 < argv.size(); ++i)
      if (argv[i] == "--bind-to" && argv[i + 1] == "none") return true;
    return false;
  };
  CHECK(has_bind_none(launchers::local_command(s, user)));
  s.edit().res.launcher_args = {{"map-by", "ppr:2:socket:pe=2"}};  // a binding of the user's: theirs alone
  CHECK_FALSE(has_bind_none(launchers::local_command(s, user)));
  s.edit().res.launcher_args = {{"bind-to", "core"}};
  const auto argv = launchers::local_command(s, user);
  CHECK(std::count(argv.begin(), argv.end(), "--bind-to") == 1);
  s.edit().res.launcher_args.clear();
  s.edit().res.exclusive = true;
  CHECK_FALSE(has_bind_none(launchers::local_command(s, user)));
}
