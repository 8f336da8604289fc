#include <catch2/catch.hpp>

#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include "launchers/local/wake_notes.hpp"

using ssim::launchers::WakeNotes;

TEST_CASE("wake notes: run directories by line, split anywhere, and a bare line means every job") {
  WakeNotes notes;
  notes.add("/exp/m/m_0\n/exp/m/m_");
  CHECK(notes.size() == 1);
  CHECK_FALSE(notes.take_everything());
  CHECK(notes.take("/exp/m/m_0"));
  CHECK_FALSE(notes.take("/exp/m/m_0"));  // taken once
  CHECK_FALSE(notes.take("/exp/m/m_1"));  // its line is not whole yet
  notes.add("1\n/exp/m/m_2\n");
  CHECK(notes.take("/exp/m/m_1"));
  notes.add("\n");
  CHECK(notes.take_everything());
  CHECK_FALSE(notes.take_everything());
  notes.forget_if([](const std::string& run_dir) { return run_dir == "/exp/m/m_2"; });  // ended meanwhile
  CHECK(notes.size() == 0);
}

TEST_CASE("wake notes: bytes that are no keeper's line wake for every job and are dropped") {
  WakeNotes notes;
  notes.add(std::string(PIPE_BUF + 1, 'a'));
  CHECK(notes.take_everything());
  notes.add("/exp/x\n");
  CHECK(notes.take("/exp/x"));
  CHECK(notes.size() == 0);
}

TEST_CASE("wake notes: a pipe that filled up may have refused notes, so every job is looked at") {
  int fds[2];
  REQUIRE(::pipe2(fds, O_NONBLOCK) == 0);
  const int capacity = ::fcntl(fds[1], F_GETPIPE_SZ);
  int refused = 0;
  for (int i = 0; i < capacity / 60 + 10; ++i) {
    const std::string line = "/exp/m/m_" + std::to_string(100000 + i) + std::string(44, '0') + "\n";
    if (::write(fds[1], line.data(), line.size()) < 0) ++refused;
  }
  REQUIRE(refused > 0);
  WakeNotes notes;
  ssim::launchers::read_wake_fd(fds[0], notes);
  CHECK(notes.size() > 1000);
  CHECK(notes.take_everything());
  // A pipe read before it fills says exactly which.
  const std::string line = "/exp/late\n";
  REQUIRE(::write(fds[1], line.data(), line.size()) > 0);
  ssim::launchers::read_wake_fd(fds[0], notes);
  CHECK(notes.take("/exp/late"));
  CHECK_FALSE(notes.take_everything());
  ::close(fds[0]), ::close(fds[1]);
}
