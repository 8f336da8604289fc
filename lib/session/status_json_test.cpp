#include <catch2/catch.hpp>

#include <sstream>

#include "lib/session/status_json.hpp"

using namespace ssim;

namespace {
state::Manifest two_entities() {
  state::Manifest m;
  m.experiment = "exp";
  m.path = "/nowhere/exp";
  m.id = "id-1";
  m.launcher = "local";
  for (const char* name : {"a", "b\"quoted\nname"}) {
    state::EntityRecord e;
    e.name = name;
    e.run_dir = std::string("/nowhere/exp/") + name;
    e.status = state::Status::Completed;
    e.exit_code = 0;
    e.start = 10, e.end = 12.5;
    e.extra_mut().params = {{"lr", "0.1"}};
    m.entities.push_back(e);
  }
  return m;
}

std::string written(const state::Manifest& m, int indent,
                    const std::function<bool(const state::EntityRecord&)>& keep = {}) {
  std::ostringstream out;
  session::write_status_json(out, m, state::LockHolder{1, "host", "run"}, indent, keep);
  return out.str();
}
}  // namespace

TEST_CASE("status json: written an entity at a time, it is the document's own text") {
  auto m = two_entities();
  const std::optional<state::LockHolder> runner = state::LockHolder{1, "host", "run"};
  for (int indent : {2, -1}) {
    CHECK(written(m, indent) == session::status_json(m, runner).dump(indent));
    auto one = session::status_json(m, runner);
    one["entities"].erase(0);
    CHECK(written(m, indent, [](const state::EntityRecord& e) { return e.name != "a"; }) == one.dump(indent));
    auto none = session::status_json(m, runner);
    none["entities"] = nlohmann::json::array();
    CHECK(written(m, indent, [](const state::EntityRecord&) { return false; }) == none.dump(indent));
  }
}

TEST_CASE("status json: every kind of field, odd text and numbers, written as nlohmann writes them") {
  auto m = two_entities();
  state::EntityRecord e;
  e.name = "sweep_7";
  e.ensemble = "sweep";
  e.run_dir = "/nowhere/exp/sweep/sweep_7";
  e.status = state::Status::Failed;
  e.exit_code = -3;
  e.signal = 9;
  e.pid = 4242;
  e.attempt = 2;
  e.held = true;
  e.job_id = "supervisor:11:1:here";
  e.nodes = "n1,n2";
  e.reason =
      std::string("killed \xff\xfe by \x01 a \"signal\" \\ tab\t ") + "\xc3\xa9t\xc3\xa9";  // not UTF-8, then UTF-8
  e.submitted = 1700000000.0;  // a whole number: "1700000000.0"
  e.start = 1700000001.123456789;
  e.end = 0.1 + 0.2;
  e.extra_mut().native_id = "123.pbs";
  e.extra_mut().params = {{"b", "2"}, {"a", "x\ny"}, {"c", ""}};
  e.extra_mut().earlier_attempts = nlohmann::json::array({{{"attempt", 1}, {"status", "failed"}, {"nodes", {"n1"}}}});
  m.entities.push_back(e);
  state::EntityRecord fresh;  // nothing known yet: zeros, nulls, empty params
  fresh.name = "later";
  m.entities.push_back(fresh);
  const std::optional<state::LockHolder> runner = state::LockHolder{1, "host", "run", ""};
  for (int indent : {2, 4, -1}) {
    INFO("indent " << indent);
    CHECK(written(m, indent) ==
          session::status_json(m, runner).dump(indent, ' ', false, nlohmann::json::error_handler_t::replace));
  }
}
