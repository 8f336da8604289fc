#include "apps/ssim-supervise/end_record.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

using namespace supervise;

namespace {
// A real wait status: a child that exits with `code`, or is killed by `sig`.
int wait_status_of(int code, int sig = 0) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (sig) {
      ::signal(sig, SIG_DFL);  // not Catch's handler, which would report the child as a failed test
      raise(sig);
    }
    _exit(code);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}
}  // namespace

TEST_CASE("end record: how the program ended, on top of who kept it") {
  ssim::state::StatusFile me;
  me.supervisor_pid = 41, me.supervisor_start_ticks = "7", me.node = "n2", me.host = "h2";
  const auto exited = end_record(me, {10.0, 1234, false, ""}, wait_status_of(3), 12.5);
  CHECK(exited.exited);
  CHECK(exited.exit_code == 3);
  CHECK_FALSE(exited.signal);
  CHECK(exited.start == 10.0);
  CHECK(exited.end == 12.5);
  CHECK(exited.pid == 1234);
  CHECK((exited.supervisor_pid == 41 && exited.node == "n2" && exited.host == "h2"));
  CHECK(exited.error.empty());
  CHECK_FALSE(exited.agent_lost);
  CHECK_FALSE(exited.time_limit_reached);
  // Killed by a signal: the signal, no exit code.
  const auto killed = end_record(me, {10.0, 1234, false, ""}, wait_status_of(0, SIGKILL), 11);
  CHECK(killed.signal == SIGKILL);
  CHECK_FALSE(killed.exit_code);
}

TEST_CASE("end record: run.time and a lost agent are said in the record") {
  ssim::state::StatusFile me;
  const auto timed = end_record(me, {1, 2, true, ""}, wait_status_of(0, SIGTERM), 3);
  CHECK(timed.time_limit_reached);
  CHECK(timed.signal == SIGTERM);
  const auto lost =
      end_record(me, {1, 2, false, "the ssim agent on n3 died: this attempt was ended"}, wait_status_of(0, SIGTERM), 3);
  CHECK(lost.agent_lost);
  CHECK(lost.error == "the ssim agent on n3 died: this attempt was ended");
  // The record round-trips through the status file's text as any other.
  const auto back = ssim::state::decode_status_file(ssim::state::encode_status_file(lost));
  REQUIRE(back);
  CHECK(back->agent_lost);
  CHECK(back->signal == SIGTERM);
}
