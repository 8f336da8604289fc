#include "lib/state/step_ends.hpp"

#include <catch2/catch.hpp>

using namespace ssim::state;

TEST_CASE("step ends: every task's line is counted, the first unclean end is named") {
  const std::string text = encode_step_end("0", 0, 0) + encode_step_end("2", 3, 0) + encode_step_end("1", 0, 9);
  const auto ends = parse_step_ends(text);
  CHECK(ends.recorded == 3);
  REQUIRE(ends.rank);
  CHECK(*ends.rank == "2");
  CHECK(ends.exit_code == 3);
  CHECK(!ends.signal);
}

TEST_CASE("step ends: a signal is told from an exit code, and clean ends name nobody") {
  const auto killed = parse_step_ends(encode_step_end("0", 0, 9));
  CHECK(killed.signal == 9);
  CHECK(!killed.exit_code);
  const auto clean = parse_step_ends(encode_step_end("", 0, 0) + encode_step_end("1", 0, 0));
  CHECK(clean.recorded == 2);
  CHECK(!clean.rank);
}

TEST_CASE("step ends: a line cut short or garbled is not counted") {
  CHECK(parse_step_ends("0 0\n1 0").recorded == 1);
  CHECK(parse_step_ends("0 0\nx 1\n2\n3 sigX\n4 1 2\n").recorded == 1);
  CHECK(parse_step_ends("").recorded == 0);
}
