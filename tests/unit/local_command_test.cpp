#include <catch2/catch.hpp>

#include "launchers/local/local_command.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim;

TEST_CASE("local commands: plain, mpirun with root and oversubscribe flags") {
  plan::Step s;
  s.exe = "sim";
  s.args = {"a b"};
  launchers::HostFacts user{false, 4}, root{true, 2};
  CHECK(launchers::local_command(s, user) == std::vector<std::string>{"sim", "a b"});
  s.res.ntasks = 4;  // auto with several tasks means mpirun
  CHECK(launchers::local_command(s, user) == std::vector<std::string>{"mpirun", "-np", "4", "sim", "a b"});
  CHECK(launchers::local_command(s, root) ==
        std::vector<std::string>{"mpirun", "-np", "4", "--allow-run-as-root", "--oversubscribe", "sim", "a b"});
  s.res.mpi = plan::MpiKind::None;
  CHECK(launchers::local_command(s, root) == std::vector<std::string>{"sim", "a b"});
  s.res.mpi = plan::MpiKind::Mpiexec;
  s.res.ntasks = 1;
  s.res.launcher_args = {{"bind-to", "none"}};
  CHECK(launchers::local_command(s, user) ==
        std::vector<std::string>{"mpiexec", "-np", "1", "--bind-to", "none", "sim", "a b"});
}

TEST_CASE("with GPUs under mpirun each rank starts through the per-rank binder") {
  plan::Step s;
  s.exe = "train";
  s.res.ntasks = 2;
  s.res.gpus_per_task = 1;
  s.res.mpi = plan::MpiKind::Mpirun;
  const launchers::HostFacts user{false, 8};
  CHECK(launchers::local_command(s, user, "/x/ssim-supervise") ==
        std::vector<std::string>{"mpirun", "-np", "2", "/x/ssim-supervise", "--per-rank-gpus", "1", "--", "train"});
}

TEST_CASE("hosts: on the local launcher give mpirun each host with its share of the slots") {
  plan::Step s;
  s.exe = "sim";
  s.res.ntasks = 4;
  s.res.hosts = {"a", "b"};
  const launchers::HostFacts user{false, 8};
  CHECK(launchers::local_command(s, user) == std::vector<std::string>{"mpirun", "-np", "4", "--host", "a:2,b:2", "sim"});
}
