#include "lib/plan/exposure.hpp"

#include <catch2/catch.hpp>

using namespace ssim::plan;

TEST_CASE("exposure: a database without a password is said, with where it listens") {
  Plan plan;
  CHECK(exposure_warnings(plan).empty());  // no database
  plan.database = Database{};
  CHECK(exposure_warnings(plan).empty());  // password: auto
  plan.database->password = false;
  plan.database->port = 6780;
  plan.database->shards = 3;
  const auto said = exposure_warnings(plan);
  REQUIRE(said.size() == 1);
  CHECK(said[0].rfind("ssim: warning: orchestrator.password: none: the database answers without a password on port "
                      "6780 (and the next 2) of every address of the node it runs on",
                      0) == 0);
  plan.database->address = "db:6379";  // external: ssim neither starts it nor sets its password
  CHECK(exposure_warnings(plan).empty());
}
