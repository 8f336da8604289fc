// The job file's one owner: what the launcher writes, the supervisor and `ssim env` read.
#include <catch2/catch.hpp>

#include "lib/state/job_file.hpp"

using namespace ssim;

TEST_CASE("job file: round trip, with words a shell would split and a time limit") {
  const state::JobFile job{{"/bin/sh", "-c", "echo 'a b'; exit 3", ""}, {"PATH=/usr/bin", "X=a=b", "EMPTY="}, 90};
  const auto text = state::encode_job_file(job);
  const auto back = state::decode_job_file(text);
  REQUIRE(back);
  CHECK(back->argv == job.argv);
  CHECK(back->env == job.env);
  CHECK(back->time_limit == 90);
  CHECK(back->version == state::kJobFileVersion);
  CHECK(state::job_variable(*back, "X") == "a=b");
  CHECK(state::job_variable(*back, "EMPTY") == "");
  CHECK_FALSE(state::job_variable(*back, "PAT"));
}

TEST_CASE("job file: an older file (no version) reads, unknown settings are skipped, damage is refused") {
  using namespace std::string_literals;
  const auto old = state::decode_job_file(
      "1\0/bin/true\0"
      "1\0A=1\0"s);
  REQUIRE(old);
  CHECK(old->version == 0);
  CHECK(old->argv == std::vector<std::string>{"/bin/true"});
  const auto newer = state::decode_job_file(
      "1\0/bin/true\0"
      "0\0"
      "format\0"
      "9\0"
      "colour\0"
      "blue\0"s);
  REQUIRE(newer);
  CHECK(newer->version == 9);
  CHECK_FALSE(state::decode_job_file(""));
  CHECK_FALSE(
      state::decode_job_file("0\0"
                             "0\0"s));                     // no program
  CHECK_FALSE(state::decode_job_file("3\0/bin/true\0"s));  // cut short
  CHECK_FALSE(
      state::decode_job_file("x\0/bin/true\0"
                             "0\0"s));  // not a count
}
