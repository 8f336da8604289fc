#include "lib/state/start_journal.hpp"

#include <catch2/catch.hpp>
#include <filesystem>

#include "tests/unit/helpers.hpp"

using namespace ssim;

TEST_CASE("start journal: a retry read before the manifest's save brings how the attempt before ended") {
  test::TempDir dir;
  state::Manifest m;
  m.path = dir.path.string();
  std::filesystem::create_directory(dir.path / ".ssim");
  state::EntityRecord e;
  e.name = "m_1";
  e.job_id = "supervisor:11:1:here";
  e.attempt = 1;
  e.status = state::Status::Running;  // as the last save left it: its failure not saved yet
  e.run_dir = dir.path.string() + "/m_1";
  m.entities.push_back(e);

  state::StartRecord retry{"m_1", "supervisor:12:1:here", 2, 20.0,
                           R"({"attempt":1,"status":"failed","reason":"node n1 lost\tfor\n15 s"})"};
  state::append_starts(m.path, {retry});
  state::apply_starts(m);
  REQUIRE(m.entities[0].attempt == 2);
  REQUIRE(m.entities[0].extra().earlier_attempts.size() == 1);
  CHECK(m.entities[0].extra().earlier_attempts[0]["reason"] == "node n1 lost\tfor\n15 s");

  state::apply_starts(m);  // read again: the same attempt is not kept twice
  CHECK(m.entities[0].extra().earlier_attempts.size() == 1);

  state::StartRecord first{"m_2", "?", 1, 21.0, ""};
  state::EntityRecord other;
  other.name = "m_2";
  other.run_dir = dir.path.string() + "/m_2";
  m.entities.push_back(other);
  state::append_starts(m.path, {first});
  state::apply_starts(m);
  CHECK(m.entities[1].extra().earlier_attempts.empty());
}

TEST_CASE("start journal: an earlier attempt the manifest holds is not added again") {
  test::TempDir dir;
  state::Manifest m;
  m.path = dir.path.string();
  std::filesystem::create_directory(dir.path / ".ssim");
  state::EntityRecord e;
  e.name = "m_1";
  e.attempt = 1;
  e.extra_mut().earlier_attempts = nlohmann::json::array({{{"attempt", 1}, {"status", "failed"}}});
  e.status = state::Status::New;  // retried and saved, not started again yet
  m.entities.push_back(e);
  state::append_starts(m.path, {{"m_1", "supervisor:12:1:here", 2, 20.0, R"({"attempt":1,"status":"failed"})"}});
  state::apply_starts(m);
  CHECK(m.entities[0].attempt == 2);
  CHECK(m.entities[0].extra().earlier_attempts.size() == 1);
}
