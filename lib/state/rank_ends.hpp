#pragma once
// <run_dir>/.ssim-rank-ends: how each rank of an entity ended, as its rank wrapper saw
// it (ssim-supervise --rank): exit code or signal, when (wall clock, so that ranks on
// different nodes compare), where, and the program's own last stderr line. It answers
// "which rank failed first": when rank 1 raises, rank 0's "Connection closed by peer"
// comes after, and the note names rank 1. The one owner of the format: one JSON object
// a line, appended in one write.
#include <optional>
#include <string>
#include <vector>

namespace ssim::state {

inline constexpr const char* kRankEndsFile = ".ssim-rank-ends";
// Rank 0's address and port for the others (MASTER_ADDR, MASTER_PORT): "ADDR PORT\n".
inline constexpr const char* kRankZeroFile = ".ssim-rank0";

struct RankEnd {
  int rank = 0;
  int exit_code = 0;
  int signal = 0;
  double end = 0;  // seconds since the epoch
  std::string host;
  std::string said;  // the program's last stderr line, not a launcher's banner
  // Its launcher asked it to end (`signal`, at `end`) and its own end was not seen: written
  // when the signal came, since a launcher that kills the rank's whole group with SIGKILL
  // a moment later leaves its wrapper no time. A later record of the rank replaces it.
  bool asked = false;
  bool clean() const { return exit_code == 0 && signal == 0; }
};

std::string encode_rank_end(const RankEnd& e);
// Lines that are not whole records are skipped; a rank's later record replaces its earlier.
std::vector<RankEnd> parse_rank_ends(const std::string& text);

// The failed rank that ended first, when any failed; a rank whose own error is only that it
// lost its peer ("Connection closed by peer") yields to one with an error of its own, even
// stamped later (ranks on other nodes keep their own clocks).
std::optional<RankEnd> first_failed_rank(const std::vector<RankEnd>& ends);
// The first rank that failed before `time` (when a stop was asked): the entity was failing
// on its own when the stop came, and keeps that outcome (docs/cli.md, ssim stop).
std::optional<RankEnd> failed_before(const std::vector<RankEnd>& ends, double time);
// "rank 1 (exit 3, on n2): ValueError: bad input"
std::string describe_rank_end(const RankEnd& e);
// "rank 1 failed first (exit 1): RuntimeError: boom; rank 0 ended after it". "" when no
// rank failed, or only one rank was recorded (its own last line says it all).
std::string describe_rank_failure(const std::vector<RankEnd>& ends);

std::vector<RankEnd> read_rank_ends(const std::string& run_dir);

// Removes what the last attempt of a step left for its outcome to be read from (rank
// ends, rank 0's address, a failed setup line): a rerun must not read them.
void forget_last_attempt(const std::string& run_dir);

}  // namespace ssim::state
