// What `ssim start NAMES` does to each entity, as data: a manifest in, a decision out.
#include "lib/engine/control_requests.hpp"

#include <catch2/catch.hpp>

#include "tests/unit/fake_launcher.hpp"

using namespace ssim;
using engine::ControlRequests;
using state::Status;

namespace {

state::EntityRecord entity(const std::string& name, Status status, const std::string& ensemble = "") {
  state::EntityRecord r;
  r.name = name;
  r.status = status;
  r.ensemble = ensemble;
  return r;
}

// A database, an ensemble of three (one ended, one running, one held) and two models.
state::Manifest manifest() {
  state::Manifest m;
  m.experiment = "exp";
  m.entities.push_back(entity("orchestrator", Status::Running));
  m.entities.back().type = state::EntityKind::Database;
  m.entities.push_back(entity("m_0", Status::Failed, "m"));
  m.entities.push_back(entity("m_1", Status::Running, "m"));
  m.entities.push_back(entity("m_2", Status::New, "m"));
  m.entities.back().held = true;
  m.entities.push_back(entity("train", Status::Completed));
  m.entities.push_back(entity("later", Status::New));
  return m;
}

}  // namespace

TEST_CASE("control: ssim start of an ensemble releases the held, reruns the ended and leaves the running") {
  ControlRequests control("/nonexistent", real_clock());
  const auto d = control.start({"m"}, manifest(), "");
  CHECK(d.refusal.empty());
  CHECK(d.release == std::vector<size_t>{3});
  CHECK(d.again == std::vector<size_t>{1});
}

TEST_CASE("control: ssim start of an entity not held and not ended does nothing to it") {
  ControlRequests control("/nonexistent", real_clock());
  const auto d = control.start({"later", "train"}, manifest(), "");
  CHECK(d.refusal.empty());
  CHECK(d.release.empty());
  CHECK(d.again == std::vector<size_t>{4});
}

TEST_CASE("control: unknown names and the database are refused whole, naming the file read again") {
  ControlRequests control("/nonexistent", real_clock());
  CHECK(control.start({"train", "nope", "nada"}, manifest(), "e.yaml").refusal ==
        "no entity nope, nada in experiment exp (nor in e.yaml)");
  CHECK(control.start({"nope"}, manifest(), "").refusal == "no entity nope in experiment exp");
  CHECK(control.start({"nope"}, manifest(), "").unknown_names);
  const auto d = control.start({"train", "orchestrator"}, manifest(), "");
  CHECK(d.refusal == "orchestrator is the database: it starts with the run");
  CHECK_FALSE(d.unknown_names);
  CHECK(d.again.empty());
}

TEST_CASE("control: what ssim stop named is not retried until ssim start names it") {
  ControlRequests control("/nonexistent", real_clock());
  const auto m = manifest();
  control.stopped({"m"});
  CHECK(control.was_stopped(m.entities[1]));
  CHECK_FALSE(control.was_stopped(m.entities[4]));
  control.start({"m_0"}, m, "");  // the ensemble's name goes with its member's start
  CHECK_FALSE(control.was_stopped(m.entities[1]));
  CHECK_FALSE(control.was_stopped(m.entities[2]));
}

TEST_CASE("control: the request folders are read at most every 50 ms") {
  test::FakeClock clock;
  ControlRequests control("/nonexistent", clock);
  CHECK(control.due());
  CHECK_FALSE(control.due());
  clock.sleep(std::chrono::milliseconds(49));
  CHECK_FALSE(control.due());
  clock.sleep(std::chrono::milliseconds(1));
  CHECK(control.due());
}
