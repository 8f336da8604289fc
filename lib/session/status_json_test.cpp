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
