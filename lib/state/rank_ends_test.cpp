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

TEST_CASE("rank ends: a rank its launcher was ending is recorded when the signal came, and its own end replaces that") {
  RankEnd asked = end(0, 0, 100.5, "", 15);
  asked.asked = true;
  // Rank 1 failed; mpirun sent rank 0 SIGTERM, then killed its whole group: only the word
  // written when the signal came is left of rank 0, and it never takes the blame.
  const auto killed =
      parse_rank_ends(encode_rank_end(end(1, 3, 100.4, "ValueError: bad input")) + encode_rank_end(asked));
  REQUIRE(killed.size() == 2);
  CHECK(killed[1].asked);
  CHECK(first_failed_rank(killed)->rank == 1);
  CHECK(describe_rank_failure(killed) ==
        "rank 1 failed first (exit 3, on n2): ValueError: bad input; rank 0 ended after rank 1 failed");
  CHECK(describe_rank_end(killed[1]) == "rank 0 (sent signal 15 by its launcher, on n1)");
  // Rank 0 lived to see its own end: that record is the rank's, in the first one's place.
  const auto seen = parse_rank_ends(encode_rank_end(asked) + encode_rank_end(end(1, 3, 100.4, "ValueError")) +
                                    encode_rank_end(end(0, 0, 100.6, "", 15)));
  REQUIRE(seen.size() == 2);
  CHECK(seen[0].rank == 0);
  CHECK_FALSE(seen[0].asked);
  CHECK(seen[0].end == 100.6);
  // Only ranks being ended: the earliest is named, as with lost peers.
  CHECK(first_failed_rank(parse_rank_ends(encode_rank_end(asked)))->rank == 0);
}
