#include <catch2/catch.hpp>

#include "lib/state/job_id.hpp"

using namespace ssim::state;
using Kind = JobId::Kind;

TEST_CASE("job ids: every spelling reads back as written") {
  for (const JobId& id : {JobId::unknown(), JobId::refused(), JobId::supervisor(4711, "123456", "login1"),
                          JobId::batch_job("88.pbs-server"), JobId::agent("1795-42", "n3"),
                          JobId::agent("g", "node:with:colons"), JobId{}}) {
    INFO(id.str());
    CHECK(parse_job_id(id.str()) == id);
  }
  CHECK(JobId::supervisor(4711, "123456", "login1").str() == "4711@123456@login1");
  CHECK(JobId::batch_job("7").str() == "job:7");
  CHECK(JobId::agent("g1", "n2").str() == "agent:g1:n2");
}

TEST_CASE("job ids: older manifests' spellings") {
  const JobId bare = parse_job_id("4711");  // before start ticks were recorded
  CHECK(bare.kind == Kind::Supervisor);
  CHECK(bare.pid == 4711);
  CHECK(bare.ticks.empty());
  CHECK(bare.host.empty());
  const JobId no_host = parse_job_id("4711@99");
  CHECK(no_host.ticks == "99");
  CHECK(no_host.host.empty());
  const JobId sbatch = parse_job_id("sbatch:12");  // ssim 0.1
  CHECK(sbatch.kind == Kind::Job);
  CHECK(sbatch.job == "12");
  CHECK(sbatch.str() == "job:12");
}

TEST_CASE("job ids: what is no job id is none, and is not started") {
  for (const char* text : {"", "job:", "agent::n1", "agent:g:", "agent:g", "x@1@h", "-3", "12345678901@1@h"}) {
    INFO(text);
    CHECK(parse_job_id(text).kind == Kind::None);
    CHECK_FALSE(parse_job_id(text).started());
  }
  CHECK_FALSE(JobId::unknown().started());
  CHECK_FALSE(JobId::refused().started());
  CHECK(parse_job_id("job:3").started());
}

TEST_CASE("job ids: an agent's name the generation and the node") {
  CHECK(JobId::agent("1795-42", "n3").str() == "agent:1795-42:n3");
  const JobId ref = parse_job_id("agent:1795-42:node:with:colons");
  REQUIRE(ref.is(Kind::Agent));
  CHECK(ref.job == "1795-42");
  CHECK(ref.node == "node:with:colons");
  CHECK_FALSE(parse_job_id("4711@123@host").is(Kind::Agent));
  CHECK_FALSE(parse_job_id("job:12").is(Kind::Agent));
  CHECK(ref.label() == "agent on node:with:colons");
  CHECK(parse_job_id("4711@1@h2").label("h1") == "4711 on h2");
  CHECK(parse_job_id("4711@1@h1").label("h1") == "4711");
  CHECK(parse_job_id("job:88.pbs").label() == "88.pbs");
}
