#include "lib/state/status_summary.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace ssim;
using state::Status;

namespace {

state::EntityRecord entity(const std::string& name, const std::string& ensemble, Status status, double start,
                           double end) {
  state::EntityRecord e;
  e.name = name;
  e.ensemble = ensemble;
  e.status = status;
  e.start = start;
  e.end = end;
  return e;
}

// A manifest of every kind of entity and time: the summary must say what a walk over it says.
state::Manifest mixed_manifest() {
  state::Manifest m;
  m.experiment = "exp";
  m.path = "/tmp/exp";
  auto db = entity("orchestrator", "", Status::Running, 1, 0);
  db.type = state::EntityKind::Database;
  m.entities.push_back(db);
  m.entities.push_back(entity("prep", "", Status::Completed, 2, 400));
  for (int i = 0; i < 40; ++i) {
    const std::string name = "sweep_" + std::to_string(i);
    switch (i % 5) {
      case 0:
        m.entities.push_back(entity(name, "sweep", Status::Completed, 10 + i, 20 + 3 * i));
        break;
      case 1:
        m.entities.push_back(entity(name, "sweep", Status::Running, 100 - i, 0));
        break;
      case 2: {
        auto e = entity(name, "sweep", Status::Failed, 10, 15 + i);
        e.exit_code = i;
        m.entities.push_back(e);
        break;
      }
      case 3:
        m.entities.push_back(entity(name, "sweep", Status::Cancelled, 30, 0));
        break;  // ended, no end
      default:
        m.entities.push_back(entity(name, "sweep", Status::New, 0, 0));
    }
  }
  for (int i = 0; i < 30; ++i) {
    auto e = entity("bad_" + std::to_string(i), "other", Status::Failed, 5, 6);
    m.entities.push_back(e);
  }
  m.entities.push_back(entity("late", "", Status::Pending, 0, 0));
  return m;
}

// The slowest by a walk over every record, as `ssim status` counted them before summaries.
std::vector<std::string> slowest_by_walk(const state::Manifest& m, double now) {
  std::vector<std::pair<double, std::string>> ran;
  for (const auto& e : m.entities)
    if (e.type != state::EntityKind::Database)
      if (const double s = state::seconds_run(e, now); s >= 0) ran.emplace_back(s, e.name);
  std::stable_sort(ran.begin(), ran.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> names;
  for (size_t i = 0; i < std::min<size_t>(5, ran.size()); ++i) names.push_back(ran[i].second);
  return names;
}

std::vector<std::string> names_of(const std::vector<const state::StatusSummary::Ran*>& ran) {
  std::vector<std::string> names;
  for (const auto* r : ran) names.push_back(r->name);
  return names;
}

}  // namespace

TEST_CASE("status summary: counts per group, the slowest at any later time, the first failures") {
  const auto m = mixed_manifest();
  const auto s = state::summarise(m);
  REQUIRE(s.groups.size() == 4);
  CHECK(s.groups[0].name == "(database)");
  CHECK(s.groups[1].name == "(models)");  // prep and late, though apart
  CHECK(s.groups[1].total == 2);
  CHECK(s.groups[1].counts.at(Status::Pending) == 1);
  CHECK(s.groups[2].name == "sweep");
  CHECK(s.groups[2].total == 40);
  CHECK(s.groups[2].counts.at(Status::Running) == 8);
  CHECK(s.groups[2].counts.count(Status::Unknown) == 0);
  CHECK(s.groups[3].counts.at(Status::Failed) == 30);
  CHECK(s.failed == 38);
  REQUIRE(s.failures.size() == state::StatusSummary::kFailuresNamed);
  CHECK(s.failures[0].name == "sweep_2");
  CHECK(s.failures[0].exit_code == 2);
  CHECK_FALSE(s.failures[19].exit_code.has_value());
  // Early, the ended ones are the slowest; later, the ones that still run overtake them.
  for (double now : {101.0, 150.0, 500.0, 5000.0}) {
    INFO("now " << now);
    CHECK(names_of(s.slowest(now)) == slowest_by_walk(m, now));
  }
}

TEST_CASE("status summary: what a run writes is what a reader reads") {
  state::SummaryFile f;
  f.summary = state::summarise(mixed_manifest());
  f.pid = 4242;
  f.host = "n1";
  f.ticks = "123456";
  f.written = 1700000000.25;
  const auto back = state::decode_summary_file(state::encode_summary_file(f));
  REQUIRE(back);
  CHECK(back->pid == 4242);
  CHECK(back->host == "n1");
  CHECK(back->ticks == "123456");
  CHECK(back->written == 1700000000.25);
  CHECK(back->summary.experiment == "exp");
  CHECK(back->summary.path == "/tmp/exp");
  REQUIRE(back->summary.groups.size() == f.summary.groups.size());
  for (size_t g = 0; g < f.summary.groups.size(); ++g) {
    CHECK(back->summary.groups[g].name == f.summary.groups[g].name);
    CHECK(back->summary.groups[g].total == f.summary.groups[g].total);
    CHECK(back->summary.groups[g].counts == f.summary.groups[g].counts);
  }
  CHECK(names_of(back->summary.slowest(150)) == names_of(f.summary.slowest(150)));
  CHECK(back->summary.failed == 38);
  CHECK(back->summary.failures.size() == f.summary.failures.size());
  CHECK(back->summary.failures[0].exit_code == 2);
  CHECK_FALSE(state::decode_summary_file("{\"pid\": 1}").has_value());
  CHECK_FALSE(state::decode_summary_file("not json").has_value());
}
