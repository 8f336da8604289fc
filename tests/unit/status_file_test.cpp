// The status file's one owner: what supervisors write and the launchers read.
#include <catch2/catch.hpp>

#include "lib/state/status_file.hpp"

using namespace ssim;

TEST_CASE("status file: round trip of a running and an ended job") {
  state::StatusFile running;
  running.start = 1700000000.25;
  running.pid = 4242;
  running.pid_start_ticks = "991";
  running.supervisor_pid = 4241;
  running.supervisor_start_ticks = "990";
  running.node = "n1";
  running.host = "cn1";
  auto back = state::decode_status_file(state::encode_status_file(running));
  REQUIRE(back);
  CHECK_FALSE(back->exited);
  CHECK(back->start == Approx(1700000000.25));
  CHECK(back->pid == 4242);
  CHECK(back->pid_start_ticks == "991");
  CHECK(back->supervisor_pid == 4241);
  CHECK(back->supervisor_start_ticks == "990");
  CHECK((back->node == "n1" && back->host == "cn1"));
  CHECK_FALSE(back->exit_code);
  CHECK(back->version == state::kStatusFileVersion);

  state::StatusFile ended = running;
  ended.exited = true;
  ended.end = 1700000009.5;
  ended.signal = 9;
  ended.time_limit_reached = true;
  ended.error = "said \"no\"\nthen\\left";
  ended.recovered_by = "ssim run";
  ended.agent_lost = true;
  back = state::decode_status_file(state::encode_status_file(ended));
  REQUIRE(back);
  CHECK(back->exited);
  CHECK(back->end == Approx(1700000009.5));
  CHECK_FALSE(back->exit_code);
  CHECK(back->signal == 9);
  CHECK(back->time_limit_reached);
  CHECK(back->error == ended.error);
  CHECK(back->recovered_by == "ssim run");
  CHECK(back->agent_lost);
  CHECK_FALSE(state::decode_status_file(state::encode_status_file(running))->agent_lost);
}

TEST_CASE("status file: an older file reads, unknown fields are ignored, damage is no status") {
  const auto old =
      state::decode_status_file(R"({"state":"exited","exit_code":4,"signal":null,"start":1,"end":2,"x":[1]})");
  REQUIRE(old);
  CHECK(old->version == 0);
  CHECK(old->exited);
  CHECK(old->exit_code == 4);
  CHECK_FALSE(old->signal);
  CHECK_FALSE(state::decode_status_file(""));
  CHECK_FALSE(state::decode_status_file(R"({"state":"exi)"));
  CHECK_FALSE(state::decode_status_file("[1, 2]"));
  CHECK(state::encode_status_file({}).back() == '\n');
}
