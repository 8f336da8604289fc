// The process runner on real processes: a command ends when its program does (not when
// what it left in the background closes its output), a timeout ends the whole group, and
// output and exit codes come back whole.
#include <catch2/catch.hpp>

#include <signal.h>

#include <chrono>
#include <fstream>

#include "lib/launch/command_runner.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim;

TEST_CASE("command runner: output, exit code and stdin come back") {
  auto runner = launch::make_process_runner();
  auto r = runner->run({"sh", "-c", "echo out; echo err >&2; exit 3"}, std::chrono::seconds(30));
  CHECK(r.exit_code == 3);
  CHECK(r.out == "out\n");
  CHECK(r.err == "err\n");
  CHECK_FALSE(r.timed_out);
  test::TempDir dir;
  const std::string in = (dir.path / "in").string();
  std::ofstream(in) << "from stdin";
  r = runner->run({"cat"}, std::chrono::seconds(30), in);
  CHECK(r.out == "from stdin");
  r = runner->run({"no-such-command-ssim"}, std::chrono::seconds(30));
  CHECK(r.exit_code == -1);
  CHECK(r.err.find("command not found") != std::string::npos);
}

TEST_CASE("command runner: a command ends when its program does, whatever it left running") {
  auto runner = launch::make_process_runner();
  test::TempDir dir;
  const std::string pidfile = (dir.path / "pid").string();
  const auto t0 = std::chrono::steady_clock::now();
  // The background sleep keeps the output open for 60 s: a reader of pipes would wait for it.
  const auto r =
      runner->run({"sh", "-c", "sleep 60 & echo $! > " + pidfile + "; echo done"}, std::chrono::seconds(120));
  const auto took = std::chrono::steady_clock::now() - t0;
  CHECK(r.exit_code == 0);
  CHECK(r.out == "done\n");
  CHECK(took < std::chrono::seconds(30));  // a bound against hanging, not a speed check
  int pid = 0;
  std::ifstream(pidfile) >> pid;
  if (pid > 0) ::kill(pid, SIGKILL);
}

TEST_CASE("command runner: a timeout ends the command and everything it started") {
  auto runner = launch::make_process_runner();
  test::TempDir dir;
  const std::string pidfile = (dir.path / "pid").string();
  const auto r =
      runner->run({"sh", "-c", "sleep 60 & echo $! > " + pidfile + "; sleep 60"}, std::chrono::milliseconds(300));
  CHECK(r.timed_out);
  CHECK(r.exit_code == -1);
  int pid = 0;
  std::ifstream(pidfile) >> pid;
  REQUIRE(pid > 0);
  // The background sleep was in the command's process group: it is gone too (or a zombie
  // of init's, about to be reaped).
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    gone = line.empty() || line.find(") Z") != std::string::npos;
    if (!gone) ::usleep(10000);  // waiting for the kill to land, bounded
  }
  CHECK(gone);
}
