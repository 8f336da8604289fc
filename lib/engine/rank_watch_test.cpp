#include "lib/engine/rank_watch.hpp"

#include <catch2/catch.hpp>

using namespace ssim;
using namespace ssim::engine;

namespace {
const std::vector<std::string> N = {"n1", "n2"};
state::RankEnd end(int rank, int code, const std::string& host, double at, const std::string& said = "") {
  state::RankEnd e;
  e.rank = rank, e.exit_code = code, e.host = host, e.end = at, e.said = said;
  return e;
}
}  // namespace

TEST_CASE("rank watch: a step whose rank failed is ended after the grace, naming the silent node") {
  RankWatch w(10);
  const std::vector<state::RankEnd> ends = {end(0, 1, "n1", 100.4, "RuntimeError: Connection closed by peer"),
                                            end(1, 1, "n1", 100.5, "RuntimeError: Connection closed by peer")};
  CHECK(!w.verdict("t", {}, 4, N, 100));  // nothing failed: nothing to say
  CHECK(!w.verdict("t", ends, 4, N, 101));
  CHECK(!w.verdict("t", ends, 4, N, 110.9));
  const auto v = w.verdict("t", ends, 4, N, 111);
  REQUIRE(v);
  CHECK(
      *v ==
      "rank 0 failed first (exit 1, on n1): RuntimeError: Connection closed by peer; rank 1 ended after rank 0 "
      "failed; ranks 2, 3 never ended (no rank on n2 recorded an end: the node may be lost); ssim ended the step 10 s "
      "after the first failure");
  w.forget("t");
  CHECK(!w.verdict("t", ends, 4, N, 200));  // a new attempt: the grace again
}

TEST_CASE("rank watch: every rank recorded, or none failed: nothing to end") {
  RankWatch w(0);
  CHECK(!w.verdict("t", {end(0, 0, "n1", 1), end(1, 0, "n2", 1)}, 2, N, 5));
  const auto v = w.verdict("t", {end(1, 3, "n2", 1, "bad input")}, 2, N, 5);
  REQUIRE(v);
  CHECK(*v ==
        "rank 1 (exit 3, on n2): bad input; rank 0 never ended (no rank on n1 recorded an end: the node may be "
        "lost); ssim ended the step 0 s after the first failure");
}
