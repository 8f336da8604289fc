#include "lib/client/rank_info.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace ssim;

// The same table the Python package is tested on (tests/integration/test_distributed.py).
TEST_CASE("rank info: every launcher's variables give one answer, ssim's own first") {
  std::ifstream in(std::string(SSIM_FIXTURES) + "/rank-env-cases.json");
  REQUIRE(in);
  const auto cases = nlohmann::json::parse(in);
  REQUIRE(cases.size() >= 8);
  for (const auto& c : cases) {
    const auto vars = c["env"].get<std::map<std::string, std::string>>();
    const auto info = rank_info([&](const char* n) -> const char* {
      const auto it = vars.find(n);
      return it == vars.end() ? nullptr : it->second.c_str();
    });
    INFO(c["what"].get<std::string>());
    CHECK(std::vector<int>{info.rank, info.size, info.local_rank, info.local_size} ==
          c["rank"].get<std::vector<int>>());
  }
}

TEST_CASE("rank info: Slurm's tasks-per-node lists") {
  CHECK(slurm_tasks_on_node("2(x3),1", 0) == 2);
  CHECK(slurm_tasks_on_node("2(x3),1", 2) == 2);
  CHECK(slurm_tasks_on_node("2(x3),1", 3) == 1);
  CHECK(slurm_tasks_on_node("2(x3),1", 4) == 0);
  CHECK(slurm_tasks_on_node("4", 0) == 4);
  CHECK(slurm_tasks_on_node("x", 0) == 0);
}

TEST_CASE("rank info: the tasks on this node as the launcher says them, never ssim's guess") {
  auto from = [](std::map<std::string, std::string> vars) {
    return launcher_local_size([vars](const char* n) -> const char* {
      const auto it = vars.find(n);
      return it == vars.end() ? nullptr : it->second.c_str();
    });
  };
  CHECK(from({}) == 0);
  CHECK(from({{"RANK", "1"}, {"LOCAL_WORLD_SIZE", "4"}}) == 0);  // ssim's own: maybe a guess
  CHECK(from({{"RANK", "1"},
              {"LOCAL_WORLD_SIZE", "4"},
              {"OMPI_COMM_WORLD_RANK", "1"},
              {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}}) == 2);
  CHECK(from({{"SLURM_PROCID", "3"}, {"SLURM_NODEID", "1"}, {"SLURM_STEP_TASKS_PER_NODE", "3,1"}}) == 1);
  CHECK(from({{"PMI_RANK", "0"}, {"MPI_LOCALNRANKS", "5"}}) == 5);
  CHECK(from({{"PALS_RANKID", "0"}, {"PMI_LOCAL_SIZE", "3"}}) == 3);
  CHECK(from({{"SLURM_PROCID", "0"}}) == 0);  // no step layout: not said
}

TEST_CASE("rank info: the rank wrapper asks the launcher, never a RANK the shell left") {
  const std::map<std::string, std::string> vars = {{"RANK", "0"},
                                                   {"WORLD_SIZE", "1"},
                                                   {"LOCAL_RANK", "0"},
                                                   {"LOCAL_WORLD_SIZE", "1"},
                                                   {"OMPI_COMM_WORLD_RANK", "3"},
                                                   {"OMPI_COMM_WORLD_SIZE", "4"},
                                                   {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                                   {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}};
  const EnvLookup env = [&](const char* n) -> const char* {
    const auto it = vars.find(n);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
  const auto said = launcher_rank_info(env);
  CHECK(std::vector<int>{said.rank, said.size, said.local_rank, said.local_size} == std::vector<int>{3, 4, 1, 2});
  CHECK(rank_info(env).rank == 0);  // a program's question: ssim's own wiring comes first
  // No launcher at all (a lone torchrun): rank 0 of 1, whatever the shell said.
  const auto alone = launcher_rank_info([](const char* n) -> const char* {
    return std::string(n) == "RANK" ? "5" : std::string(n) == "WORLD_SIZE" ? "8" : nullptr;
  });
  CHECK(std::vector<int>{alone.rank, alone.size} == std::vector<int>{0, 1});
}
