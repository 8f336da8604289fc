#include <catch2/catch.hpp>

#include "lib/state/agent_files.hpp"

using namespace ssim::state;

TEST_CASE("agent files: jobs and stops round-trip, with any byte but NUL in a path") {
  const std::vector<AgentJob> jobs = {{"/runs/e/m_0", "m_0", std::string("1\0/bin/true\0", 12)},
                                      {"/runs/with space\nand newline/m_1", "m_1", ""}};
  std::string stream = encode_agent_start(jobs);
  std::vector<AgentJob> back(2);
  REQUIRE(take_job_handoff(stream, back[0]));
  REQUIRE(take_job_handoff(stream, back[1]));
  CHECK(stream.empty());
  CHECK(back[1].run_dir == jobs[1].run_dir);
  CHECK(back[1].name == "m_1");
  CHECK(back[0].spec == jobs[0].spec);  // NULs and all
  const auto stop = decode_agent_cancel(encode_agent_cancel({true, {"/a", "/b"}}));
  REQUIRE(stop);
  CHECK(stop->force);
  CHECK(stop->run_dirs == std::vector<std::string>{"/a", "/b"});
  CHECK_FALSE(decode_agent_cancel(encode_agent_cancel({false, {"/a"}}))->force);
}

TEST_CASE("agent files: a stream cut short gives its whole jobs and waits for the rest, and a bad cancel is refused") {
  const std::string text = encode_agent_start({{"/r/a", "a"}, {"/r/b", "b"}});
  std::string cut = text.substr(0, text.size() - 1);  // the last NUL not written yet
  AgentJob job;
  REQUIRE(take_job_handoff(cut, job));
  CHECK(job.name == "a");
  CHECK_FALSE(take_job_handoff(cut, job));  // b waits, untouched, for its last byte
  cut += text.back();
  REQUIRE(take_job_handoff(cut, job));
  CHECK(job.name == "b");
  CHECK_FALSE(decode_agent_cancel(std::string("STOP\0/a\0", 8)));
  CHECK_FALSE(decode_agent_cancel(text));
}

TEST_CASE("agent files: a job handoff is taken whole from a stream that brings it a byte at a time") {
  const AgentJob job{"/runs/e/m_7", "m_7",
                     std::string("2\0/bin/sh\0-c\0\0"
                                 "1\0A=B\0",
                                 22),
                     4096, "/runs/e/.ssim/keepers"};
  const std::string stream = encode_job_handoff(job) + encode_job_handoff({"/r/x", "x", ""});
  std::string buffer;
  std::vector<AgentJob> taken;
  for (char c : stream) {
    buffer.push_back(c);
    AgentJob next;
    while (take_job_handoff(buffer, next)) taken.push_back(next);
  }
  REQUIRE(taken.size() == 2);
  CHECK(taken[0].run_dir == job.run_dir);
  CHECK(taken[0].spec == job.spec);
  CHECK(taken[0].launch == 4096);  // where its keeper records it
  CHECK(taken[0].journals == "/runs/e/.ssim/keepers");
  CHECK(taken[1].name == "x");
  CHECK(taken[1].launch == -1);  // none: its status file
  CHECK(taken[1].journals.empty());
  CHECK(buffer.empty());
}
