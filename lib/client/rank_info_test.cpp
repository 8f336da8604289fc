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
