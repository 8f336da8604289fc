#include "lib/state/status_file.hpp"

#include <catch2/catch.hpp>

#include "lib/state/keeper_journal.hpp"

using namespace ssim::state;

namespace {
StatusFile every_field(const std::string& error) {
  StatusFile s;
  s.exited = true, s.start = 1795973816.233242, s.end = 1795973817.5, s.pid = 4242, s.pid_start_ticks = "8319110";
  s.supervisor_pid = 17, s.supervisor_start_ticks = "99", s.node = "n3", s.host = "login1";
  s.exit_code = 3, s.signal = std::nullopt, s.error = error, s.time_limit_reached = true;
  s.recovered_by = "ssim status", s.agent_lost = true;
  return s;
}

void require_same(const StatusFile& a, const StatusFile& b) {
  CHECK(a.exited == b.exited);
  CHECK(a.start == b.start);
  CHECK(a.end == b.end);
  CHECK(a.pid == b.pid);
  CHECK(a.pid_start_ticks == b.pid_start_ticks);
  CHECK(a.supervisor_pid == b.supervisor_pid);
  CHECK(a.supervisor_start_ticks == b.supervisor_start_ticks);
  CHECK(a.node == b.node);
  CHECK(a.host == b.host);
  CHECK(a.exit_code == b.exit_code);
  CHECK(a.signal == b.signal);
  CHECK(a.error == b.error);
  CHECK(a.time_limit_reached == b.time_limit_reached);
  CHECK(a.recovered_by == b.recovered_by);
  CHECK(a.agent_lost == b.agent_lost);
  CHECK(a.version == b.version);
}
}  // namespace

TEST_CASE("status file: the quick reader and the full parser read every field alike", "[state]") {
  // Plain text takes the quick reader; an escape in the error makes it give up and the
  // full parser read it from the start: both must say the same.
  for (const std::string error : {"out of memory", "said \"no\"\tand quit"}) {
    const StatusFile s = every_field(error);
    const auto back = decode_status_file(encode_status_file(s));
    REQUIRE(back);
    require_same(*back, s);
    // A keeper's slot: launch and run directory first, spaces after.
    const auto slot = decode_status_file(encode_journal_record(7, "/exp/m/m_1", s, 0));
    REQUIRE(slot);
    require_same(*slot, s);
  }
}

TEST_CASE("status file: what is not a status object is nothing, and an older file has format 0", "[state]") {
  CHECK_FALSE(decode_status_file(""));
  CHECK_FALSE(decode_status_file("{\"state\":\"exited\",\"pid\":"));
  CHECK_FALSE(decode_status_file("[1,2]"));
  const auto old = decode_status_file("{\"state\":\"running\",\"pid\":12,\"start\":5}");
  REQUIRE(old);
  CHECK(old->version == 0);
  CHECK(old->pid == 12);
  CHECK(old->start == 5);
  CHECK_FALSE(old->exited);
  CHECK_FALSE(old->exit_code);
}
