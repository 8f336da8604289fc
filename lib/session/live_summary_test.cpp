#include "lib/session/live_summary.hpp"

#include <catch2/catch.hpp>
#include <filesystem>

#include "lib/engine/summary_writer.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/clock.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim;

TEST_CASE("live summary: taken only from the run that holds the experiment, while fresh") {
  test::TempDir dir;
  const std::string path = dir.path.string();
  std::filesystem::create_directory(dir.path / ".ssim");
  state::StatusSummary s;
  s.experiment = "exp";
  s.groups.push_back({"sweep", 3, {{state::Status::Running, 3}}});

  auto lock = state::RunLock::try_acquire(path, "run");
  REQUIRE(lock);
  CHECK_FALSE(session::live_summary(path, now_seconds()));  // none written yet

  engine::SummaryWriter writer(path);
  writer.offer(s, std::chrono::steady_clock::now());
  const auto live = session::live_summary(path, now_seconds());
  REQUIRE(live);
  CHECK(live->summary.groups.at(0).total == 3);
  CHECK(live->runner.pid == ::getpid());
  // Stale: the run stopped writing (stopped, or busy for long).
  CHECK_FALSE(session::live_summary(path, now_seconds() + session::kFreshSummarySeconds + 1));

  // Another run's summary (the one before, killed), though fresh and the lock held.
  auto other = state::decode_summary_file(read_file(state::summary_path(path)).value());
  REQUIRE(other);
  other->ticks += "0";
  write_file_atomically(state::summary_path(path), state::encode_summary_file(*other));
  CHECK_FALSE(session::live_summary(path, now_seconds()));

  // No run holds the experiment: its last summary is not read, whatever its signature.
  writer.offer(s, std::chrono::steady_clock::now() + std::chrono::seconds(2));
  REQUIRE(session::live_summary(path, now_seconds()));
  lock.reset();
  CHECK_FALSE(session::live_summary(path, now_seconds()));
}
