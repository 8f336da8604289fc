#include "lib/state/rank_ends.hpp"

#include <catch2/catch.hpp>

using namespace ssim::state;

namespace {
RankEnd end(int rank, int code, double at, const std::string& said, int signal = 0) {
  RankEnd e;
  e.rank = rank, e.exit_code = code, e.signal = signal, e.end = at, e.host = "n" + std::to_string(rank + 1),
  e.said = said;
  return e;
}
}  // namespace

TEST_CASE("rank ends: the rank that failed first is named with its own error, not its peer's") {
  // Rank 1 raised; rank 0 then lost its peer; rank 2 was killed by mpirun after both.
  const std::string text = encode_rank_end(end(0, 1, 100.25, "RuntimeError: [gloo] Connection closed by peer")) +
                           encode_rank_end(end(1, 1, 100.10, "RuntimeError: rank 1 exploded at epoch 1")) +
                           encode_rank_end(end(2, 0, 100.30, "", 15));
  const auto ends = parse_rank_ends(text);
  REQUIRE(ends.size() == 3);
  REQUIRE(first_failed_rank(ends));
  CHECK(first_failed_rank(ends)->rank == 1);
  CHECK(describe_rank_failure(ends) ==
        "rank 1 failed first (exit 1, on n2): RuntimeError: rank 1 exploded at epoch 1; ranks 0, 2 ended after rank 1 "
        "failed");
}

TEST_CASE("rank ends: a peer's lost connection stamped first does not name the wrong rank") {
  const auto ends = parse_rank_ends(encode_rank_end(end(3, 1, 99.9, "RuntimeError: [gloo] Connection closed by peer")) +
                                    encode_rank_end(end(2, 1, 100.1, "RuntimeError: bad batch on rank 2")));
  REQUIRE(first_failed_rank(ends));
  CHECK(first_failed_rank(ends)->rank == 2);
  // Only lost peers: the earliest of them.
  const auto lost = parse_rank_ends(encode_rank_end(end(1, 1, 5, "Connection reset by peer")) +
                                    encode_rank_end(end(0, 1, 4, "Connection closed by peer")));
  CHECK(first_failed_rank(lost)->rank == 0);
}

TEST_CASE("rank ends: clean ends, a single rank and torn lines say nothing of ranks") {
  CHECK(describe_rank_failure(parse_rank_ends(encode_rank_end(end(0, 0, 1, "")) + encode_rank_end(end(1, 0, 2, "")))) ==
        "");
  CHECK(describe_rank_failure(parse_rank_ends(encode_rank_end(end(0, 3, 1, "boom")))) == "");
  const std::string torn = encode_rank_end(end(0, 2, 5, "x"));
  CHECK(parse_rank_ends(torn.substr(0, torn.size() / 2) + "\n" + encode_rank_end(end(1, 0, 1, ""))).size() == 1);
}
