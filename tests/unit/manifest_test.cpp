#include <catch2/catch.hpp>

#include "lib/engine/engine.hpp"
#include <filesystem>
#include <fstream>

#include "lib/state/manifest.hpp"
#include "lib/state/start_journal.hpp"
#include "lib/util/atomic_file.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim;
using state::Status;

namespace {
state::EntityRecord named(const std::string& name) {
  state::EntityRecord r;
  r.name = name;
  return r;
}
plan::Plan chain_plan() {
  return test::plan_of(
      "experiment: {name: x}\norchestrator: {}\nmodels:\n  - {name: a, exe: t}\n"
      "  - {name: b, exe: t, after: [a]}\n  - {name: c, exe: t, after: [b]}\n  - {name: d, exe: t}\n");
}
}  // namespace

TEST_CASE("a new manifest lists the database first, then entities in order, all new") {
  const auto m = engine::new_manifest(chain_plan(), "id1");
  REQUIRE(m.entities.size() == 5);
  CHECK(m.entities[0].name == "orchestrator");
  CHECK(m.entities[0].type == state::EntityKind::Database);
  CHECK(m.entities[3].extra().after == std::vector<std::string>{"b"});
  for (const auto& e : m.entities) CHECK(e.status == Status::New);
}

TEST_CASE("resume keeps clean successes and reruns failures and what waits on them") {
  auto previous = engine::new_manifest(chain_plan(), "id1");
  auto set = [&](const std::string& name, Status s, int code) {
    auto* e = previous.find(name);
    e->status = s;
    e->exit_code = code;
    e->job_id = "42";
    e->attempt = 1;
  };
  set("orchestrator", Status::Completed, 0);
  set("a", Status::Completed, 0);
  set("b", Status::Failed, 3);
  set("c", Status::Cancelled, 0);
  set("d", Status::Completed, 0);
  // The file unchanged: made over in place. With an entity of the previous run gone from
  // the file (its records no longer the plan's, in order): each found by name. Alike.
  auto reordered = previous;
  reordered.entities.push_back(reordered.entities[1]);
  reordered.entities.back().name = "gone";
  const auto by_name = engine::resume_manifest(chain_plan(), std::move(reordered));
  const auto m = engine::resume_manifest(chain_plan(), std::move(previous));
  CHECK(state::to_json(by_name) == state::to_json(m));
  CHECK(m.id == "id1");
  CHECK(m.entities.size() == 5);
  CHECK(m.find("orchestrator")->status == Status::New);  // the database always starts again
  CHECK(m.find("a")->status == Status::Completed);
  CHECK(m.find("a")->job_id == "42");
  CHECK(m.find("b")->status == Status::New);
  CHECK(m.find("b")->attempt == 1);  // incremented when it starts
  CHECK(m.find("b")->extra().earlier_attempts.size() == 1);
  CHECK(m.find("c")->status == Status::New);
  CHECK(m.find("d")->status == Status::Completed);
}

TEST_CASE("manifests survive a JSON round trip") {
  auto m = engine::new_manifest(chain_plan(), "id9");
  m.find("a")->signal = 11;
  m.find("a")->extra_mut().native_id = "7.1";
  m.allocation_job = "7";
  m.allocation_owned = true;
  const auto back = state::manifest_from_json(state::to_json(m));
  CHECK(back.find("a")->signal == 11);
  CHECK(back.find("a")->extra().native_id == "7.1");
  CHECK(back.allocation_owned);
  CHECK(state::to_json(back) == state::to_json(m));
}

TEST_CASE("the manifest file's text, built an entity at a time, is the same document") {
  auto m = engine::new_manifest(chain_plan(), "id9");
  m.find("b")->reason = "a \"quoted\"\nreason";
  CHECK(nlohmann::json::parse(state::manifest_text(m)) == state::to_json(m));
  m.entities.clear();
  CHECK(nlohmann::json::parse(state::manifest_text(m)) == state::to_json(m));
}

TEST_CASE("starts the manifest does not hold yet are read back from the start journal") {
  test::TempDir dir;
  std::filesystem::create_directories(dir.path / ".ssim");
  auto m = engine::new_manifest(chain_plan(), "id3");
  m.path = dir.path.string();
  state::save_manifest(m);
  state::append_starts(m.path, {{"a", "123@456", 1, 10.5, ""}, {"d", "124@457", 1, 10.6, ""}});
  state::append_starts(m.path, {{"a", "125@458", 2, 20.5, ""}});  // a's retry
  {
    std::ofstream torn(state::start_journal_path(m.path), std::ios::app);
    torn << "d\t126@459";  // a line cut short by a crash is ignored
  }
  auto back = state::load_manifest(m.path);
  CHECK(back.find("a")->job_id == "125@458");
  CHECK(back.find("a")->attempt == 2);
  CHECK(back.find("a")->status == Status::Pending);  // refreshed from the job itself
  CHECK(back.find("d")->job_id == "124@457");
  CHECK(back.find("b")->job_id.empty());
  // A full save holds them; an entry older than the manifest changes nothing.
  back.find("a")->status = Status::Completed;
  state::save_manifest(back);
  state::clear_starts(m.path);
  state::append_starts(m.path, {{"a", "123@456", 1, 10.5}});
  CHECK(state::load_manifest(m.path).find("a")->status == Status::Completed);
}

TEST_CASE("a saved manifest loads back, and so does one in an older ssim's layout") {
  test::TempDir dir;
  std::filesystem::create_directories(dir.path / ".ssim");
  auto m = engine::new_manifest(chain_plan(), "id9");
  m.path = dir.path.string();
  m.find("b")->reason = "two\nlines, and \"entities\": [ inside";
  state::save_manifest(m);
  CHECK(state::to_json(state::load_manifest(m.path)) == state::to_json(m));
  write_file_atomically(state::manifest_path(m.path), state::to_json(m).dump(1));  // the whole document, indented
  CHECK(state::to_json(state::load_manifest(m.path)) == state::to_json(m));
}

TEST_CASE("manifest lookups by name follow entities appended, replaced and absent") {
  state::Manifest m;
  for (int i = 0; i < 3; ++i) m.entities.push_back(named("e" + std::to_string(i)));
  REQUIRE(m.find("e1"));
  CHECK(m.find("e1")->name == "e1");
  CHECK(m.find("nope") == nullptr);
  m.entities.push_back(named("e3"));  // appended after the index was built
  REQUIRE(m.find("e3"));
  CHECK(m.find("e3") == &m.entities[3]);
  m.entities.erase(m.entities.begin());  // moved: the index is stale, and found so
  CHECK(m.find("e2") == &m.entities[1]);
  CHECK(m.find("e0") == nullptr);
}
