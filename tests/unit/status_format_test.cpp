#include <catch2/catch.hpp>

#include "apps/ssim/status_format.hpp"
#include "lib/engine/event.hpp"
#include "lib/util/errors.hpp"

using namespace ssim;
using namespace ssim::app;

namespace {
state::EntityRecord member(const std::string& name, state::Status s, double start, double end) {
  state::EntityRecord e;
  e.name = name;
  e.type = state::EntityKind::Member;
  e.ensemble = "sim";
  e.status = s;
  e.start = start;
  e.end = end;
  e.extra_mut().params = {{"n", "3"}, {"mode", "fast"}};
  return e;
}
}  // namespace

TEST_CASE("status formats: a field list, a template, and unknown fields refused") {
  const auto list = parse_status_format("name, status ,elapsed");
  CHECK(list.fields == std::vector<std::string>{"name", "status", "elapsed"});
  const auto tmpl = parse_status_format("{name}: {status} ({params})");
  CHECK(tmpl.fields == std::vector<std::string>{"name", "status", "params"});
  CHECK(tmpl.literals == std::vector<std::string>{"", ": ", " (", ")"});
  CHECK_THROWS_AS(parse_status_format("{name} {nme}"), UsageError);
  CHECK_THROWS_WITH(parse_status_format("nme"),
                    Catch::Contains("unknown status field \"nme\"") && Catch::Contains("fields: name, type"));
  CHECK_THROWS_WITH(parse_status_format("{name"), Catch::Contains("not closed"));
  CHECK_THROWS_AS(parse_status_format(""), UsageError);
}

TEST_CASE("status fields and columns") {
  const auto a = member("sim_0", state::Status::Completed, 100, 162.5);
  const auto b = member("sim_10", state::Status::Running, 100, 0);
  CHECK(status_field(a, "elapsed", 0) == "00:01:02");
  CHECK(status_field(b, "elapsed", 100 + 90061) == "1-01:01:01");
  CHECK(status_field(a, "params", 0) == "mode=fast,n=3");
  CHECK(status_field(a, "nodes", 0) == "-");
  CHECK(status_field(a, "seconds", 0) == "62.500");
  CHECK(clock_text(-1) == "-");
  const auto lines = format_status(parse_status_format("{name} {status}!"), {&a, &b}, 200);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "NAME   STATUS!");
  CHECK(lines[1] == "sim_0  completed!");
  CHECK(lines[2] == "sim_10 running!");
}

TEST_CASE("the job column: the scheduler's id, but a node agent's members by their pid") {
  auto step = member("sim_0", state::Status::Running, 100, 0);
  step.job_id = "4242@77@login1", step.pid = 4250, step.extra_mut().native_id = "31.4";
  CHECK(status_field(step, "job", 0) == "31.4");
  auto agent = step;
  agent.job_id = "agent:1795-42:n2", agent.extra_mut().native_id = "31.0";  // the agents' one step
  CHECK(status_field(agent, "job", 0) == "4250");
  agent.pid = 0;  // not started on its node yet
  CHECK(status_field(agent, "job", 0) == "31.0");
  auto local = step;
  local.extra_mut().native_id.clear();
  CHECK(status_field(local, "job", 0) == "4250");
}

TEST_CASE("events read as lines and as JSON") {
  engine::Event done = engine::text_event(engine::EventKind::Finished, "");
  done.counts = {{state::Status::Completed, 2}, {state::Status::Failed, 1}, {state::Status::Cancelled, 1}};
  done.seconds = 30.94;
  done.exit_code = 1;
  CHECK(to_text(done) == "2 completed, 1 failed, 1 cancelled in 30.9 s");
  const auto j = to_json(done);
  CHECK(j["event"] == "finished");
  CHECK(j["exit_code"] == 1);
  CHECK(j["counts"]["failed"] == 1);
  CHECK(j["message"] == "2 completed, 1 failed, 1 cancelled in 30.9 s");

  const auto failed = engine::entity_event("up_3", "member", state::Status::Failed, 3, "exit code 3",
                                           " | ValueError  (ssim logs x up_3 --stderr)");
  CHECK(to_text(failed) == "up_3 failed: exit code 3 | ValueError  (ssim logs x up_3 --stderr)");
  CHECK(to_json(failed)["status"] == "failed");
  CHECK(to_json(failed)["exit_code"] == 3);
  const auto retry = engine::entity_event("up_3", "member", state::Status::New, std::nullopt, "retrying in 0.5 s");
  CHECK(to_text(retry) == "up_3 retrying in 0.5 s");
  const auto ok = engine::entity_event("a", "model", state::Status::Completed, 0, "");
  CHECK(to_text(ok) == "a completed");
  auto ready = engine::text_event(engine::EventKind::DatabaseReady, "");
  ready.detail = "127.0.0.1:6780";
  ready.millis = 19.6;
  CHECK(to_text(ready) == "database ready at 127.0.0.1:6780 (19 ms)");
  CHECK(to_text(engine::text_event(engine::EventKind::Warning, "no password")) == "warning: no password");
}
