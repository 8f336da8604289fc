// The database watch as data: shards' answers and statuses in, what to say out. A stub
// control stands for the shards; the clock is moved by the test.
#include "lib/engine/database_watch.hpp"

#include <catch2/catch.hpp>

#include "lib/util/errors.hpp"
#include "tests/unit/fake_launcher.hpp"

using namespace ssim;
using engine::DatabaseWatch;
using state::Status;

namespace {

struct Shards : engine::DatabaseControl {
  bool answers = true;
  int pings = 0;
  std::vector<orchestrator::Address> wait_until_ready(const plan::Plan&, const std::string&, std::chrono::milliseconds,
                                                      const std::function<void()>&) override {
    return {};
  }
  bool ping(const std::string&, const std::string&, std::chrono::milliseconds) override { return ++pings, answers; }
  std::optional<nlohmann::json> sample(const std::string& shard, const std::string&, const std::string&,
                                       std::chrono::milliseconds) override {
    if (!answers) return std::nullopt;
    return nlohmann::json{{"shard", shard}};
  }
  void check_external(const std::string& a, const std::string&, std::chrono::milliseconds) override {
    if (!answers) throw EnvironmentError(a + " refused the connection");
  }
  orchestrator::ShutdownOutcome shutdown(const std::vector<std::string>&, const std::string&, bool) override {
    return {};
  }
};

state::Manifest two_shards() {
  state::Manifest m;
  for (const char* name : {"db_0", "db_1"}) {
    state::EntityRecord r;
    r.name = name;
    r.type = state::EntityKind::Database;
    r.status = Status::Running;
    m.entities.push_back(r);
  }
  return m;
}

std::vector<std::string> texts(const DatabaseWatch::Findings& f) {
  std::vector<std::string> out;
  for (const auto& e : f.said) out.push_back(e.text);
  return out;
}

// Two running shards (or an external database when `address` is set), watched.
struct Watched {
  Shards shards;
  test::FakeClock clock;
  DatabaseWatch watch{shards, clock};
  plan::Database spec;
  state::Manifest m = two_shards();
  DatabaseWatch::Findings look_after(int ms) {
    clock.sleep(std::chrono::milliseconds(ms));
    return watch.look(spec, "pw", m);
  }
};

}  // namespace

TEST_CASE("database watch: a silent shard is said once and again when it answers, pinged every 2 s") {
  Watched w;
  CHECK(texts(w.look_after(0)).empty());
  CHECK(w.shards.pings == 2);
  w.shards.answers = false;
  CHECK(texts(w.look_after(1900)).empty());  // not time to ping yet
  CHECK(texts(w.look_after(100)) ==
        std::vector<std::string>{
            "database db_0, db_1 does not answer (stopped or hung?); entities that use it will wait"});
  CHECK(texts(w.look_after(2000)).empty());  // said already
  w.shards.answers = true;
  const auto back = w.look_after(2000);
  REQUIRE(back.said.size() == 1);
  CHECK(back.said[0].kind == engine::EventKind::Info);
  CHECK(back.said[0].text == "database answers again");
  CHECK_FALSE(w.watch.external_lost());  // only an external database's loss is the environment's failure
}

TEST_CASE("database watch: a shard that ended is said once, then the shards are no longer pinged") {
  Watched w;
  w.m.entities[1].status = Status::Failed;
  w.m.entities[1].exit_code = 1;
  const auto found = w.look_after(0);
  REQUIRE(found.said.size() == 1);
  CHECK(found.said[0].kind == engine::EventKind::Error);
  CHECK(found.said[0].text.rfind("database db_1 ended while entities run (", 0) == 0);
  const int pings = w.shards.pings;
  CHECK(w.look_after(4000).said.empty());
  CHECK(w.shards.pings == pings);
}

TEST_CASE("database watch: running shards are sampled every 5 s") {
  Watched w;
  CHECK(w.look_after(0).samples.size() == 2);
  CHECK(w.look_after(4000).samples.empty());
  CHECK(w.look_after(1000).samples.size() == 2);
}

TEST_CASE("database watch: an external database that stops answering fails the environment, said with why") {
  Watched w;
  w.spec.address = "db.example:6379";
  w.m = {};
  CHECK(w.look_after(0).said.empty());
  w.shards.answers = false;
  const auto lost = w.look_after(2000);
  REQUIRE(lost.said.size() == 1);
  CHECK(lost.said[0].text ==
        "the external database at db.example:6379 (orchestrator.address) does not answer any more; entities that use "
        "it will fail or wait (db.example:6379 refused the connection)");
  CHECK(w.watch.external_lost());
  CHECK(lost.samples.empty());  // not ours to sample
  w.shards.answers = true;
  CHECK(texts(w.look_after(2000)) ==
        std::vector<std::string>{"the external database at db.example:6379 answers again"});
  CHECK(w.watch.external_lost());  // the run still ends with exit code 3
}
