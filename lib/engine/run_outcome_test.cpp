#include "lib/engine/run_outcome.hpp"

#include <catch2/catch.hpp>

#include "lib/engine/engine.hpp"
#include "lib/launch/launcher.hpp"

using namespace ssim;
using state::Status;

namespace {
state::EntityRecord entity(const std::string& name, Status status, std::optional<int> exit_code = 0,
                           state::EntityKind type = state::EntityKind::Model, const std::string& ensemble = "") {
  state::EntityRecord r;
  r.name = name;
  r.status = status;
  r.exit_code = exit_code;
  r.type = type;
  r.ensemble = ensemble;
  return r;
}
}  // namespace

TEST_CASE("run outcome: the exit code says completed, failed, or the environment's fault") {
  state::Manifest m;
  m.entities = {entity("a", Status::Completed), entity("b", Status::Completed)};
  CHECK(engine::run_exit_code(m, false) == 0);
  CHECK(engine::run_exit_code(m, true) == 3);

  // A persistent database still running, and one ssim had to kill at the end: no failure.
  m.entities.push_back(entity("orchestrator_0", Status::Running, std::nullopt, state::EntityKind::Database));
  auto killed = entity("orchestrator_1", Status::Cancelled, std::nullopt, state::EntityKind::Database);
  killed.reason = std::string(engine::kStoppedAtEnd) + " (it did not shut down when asked; stopped)";
  m.entities.push_back(killed);
  m.entities.push_back(entity("batch", Status::Running, std::nullopt, state::EntityKind::Batch));
  CHECK(engine::run_exit_code(m, false) == 0);

  m.entities.push_back(entity("c", Status::Completed, 1));  // completed, but not with 0
  CHECK(engine::run_exit_code(m, false) == 1);
  m.entities.back() = entity("c", Status::Cancelled, std::nullopt);
  CHECK(engine::run_exit_code(m, false) == 1);

  auto never = entity("d", Status::Failed, std::nullopt);
  never.reason = std::string("pbs") + launch::kNeverRuns + "Not enough total nodes available";
  m.entities.push_back(never);
  CHECK(engine::run_exit_code(m, false) == 3);  // the scheduler can never run it: not the workflow's failure
}

TEST_CASE("run outcome: the tally counts every entity but the database, and each ensemble's ended members") {
  state::Manifest m;
  m.entities = {entity("orchestrator", Status::Running, std::nullopt, state::EntityKind::Database),
                entity("e_0", Status::Completed, 0, state::EntityKind::Member, "e"),
                entity("e_1", Status::Running, std::nullopt, state::EntityKind::Member, "e"),
                entity("f_0", Status::Failed, 1, state::EntityKind::Member, "f"),
                entity("solo", Status::New, std::nullopt)};
  const auto t = engine::tally_of(m);
  CHECK(t.counts.at(Status::Completed) == 1);
  CHECK(t.counts.at(Status::Running) == 1);
  CHECK(t.counts.at(Status::Failed) == 1);
  CHECK(t.counts.at(Status::New) == 1);
  REQUIRE(t.ensembles.size() == 2);
  CHECK((t.ensembles[0].name == "e" && t.ensembles[0].ended == 1 && t.ensembles[0].total == 2));
  CHECK((t.ensembles[1].name == "f" && t.ensembles[1].ended == 1 && t.ensembles[1].total == 1));
}
