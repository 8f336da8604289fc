// The engine driven without processes: a fake launcher whose jobs end as scripted, a
// fake clock that moves only when the engine waits or sleeps, signals at chosen ticks.
#include <catch2/catch.hpp>

#include <spdlog/logger.h>

#include <filesystem>
#include <fstream>

#include "lib/engine/engine.hpp"
#include "lib/orchestrator/database.hpp"
#include "lib/state/control_request.hpp"
#include "lib/state/entity_error.hpp"
#include "lib/state/rank_ends.hpp"
#include "tests/unit/fake_database.hpp"
#include "tests/unit/fake_launcher.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim;
using state::Status;

namespace {

// The lines a person would read, kept.
struct RecordingProgress : engine::SilentProgress {
  std::vector<std::string> lines;
  void event(const engine::Event& e) override { lines.push_back(engine::to_text(e)); }
  long count(const std::string& part) const {
    return std::count_if(lines.begin(), lines.end(), [&](const auto& l) { return l.find(part) != std::string::npos; });
  }
};

struct Harness {
  test::TempDir dir;
  test::FakeClock clock;
  test::FakeWaiter waiter{clock};
  test::FakeLauncher launcher{clock};
  plan::Plan plan;
  state::Manifest m;
  RecordingProgress progress;
  test::FakeDatabase database{launcher, plan};

  explicit Harness(const std::string& yaml) : plan(test::plan_of(yaml, dir.path.string())) {
    std::filesystem::create_directories(plan.path + "/.ssim");
    for (const auto& s : plan.steps) std::filesystem::create_directories(s.run_dir);
    if (plan.database)
      for (const auto& shard : orchestrator::shards_of(*plan.database))
        std::filesystem::create_directories(shard.run_dir);
    m = engine::new_manifest(plan, "engine-test");
  }
  int run(const engine::EngineHooks& hooks = {}) {
    engine::Engine e(plan, m, launcher, progress, std::make_shared<spdlog::logger>("engine-test"), -1,
                     {&clock, &waiter, &database});
    return e.run(hooks);
  }
  const state::EntityRecord& entity(const std::string& name) const { return *m.find(name); }
  long starts_of(const std::string& name) const {
    return std::count(launcher.started.begin(), launcher.started.end(), name);
  }
};

}  // namespace

TEST_CASE("engine: after: starts in order, and a failure cancels what waits on it") {
  Harness h(R"(
experiment: {name: chain}
models:
  - {name: a, exe: /bin/true}
  - {name: b, exe: /bin/true, after: [a]}
  - {name: c, exe: /bin/true, after: [b]}
  - {name: d, exe: /bin/true, after_any: [b]}
)");
  h.launcher.script("b", {2});
  CHECK(h.run() == 1);
  CHECK(h.launcher.started == std::vector<std::string>{"a", "b", "d"});
  CHECK(h.entity("a").status == Status::Completed);
  CHECK(h.entity("b").status == Status::Failed);
  CHECK(h.entity("c").status == Status::Cancelled);
  CHECK(h.entity("c").reason == "not started: after b failed");
  CHECK(h.entity("d").status == Status::Completed);  // after_any runs whatever b did
}

TEST_CASE("engine: retries rerun a failed entity after a backoff, and keep each attempt") {
  Harness h("experiment: {name: r}\nmodels:\n  - {name: flaky, exe: /bin/true, retries: 3}\n");
  h.launcher.script("flaky", {1, 1, 0});
  CHECK(h.run() == 0);
  CHECK(h.starts_of("flaky") == 3);
  CHECK(h.entity("flaky").status == Status::Completed);
  CHECK(h.entity("flaky").attempt == 3);
  CHECK(h.entity("flaky").extra().earlier_attempts.size() == 2);
  CHECK(h.clock.seconds() >= 0.5 + 1.0);  // backoffs of 0.5 s and 1 s were waited out
}

TEST_CASE("engine: retries stop at the limit") {
  Harness h("experiment: {name: r}\nmodels:\n  - {name: bad, exe: /bin/true, retries: 2}\n");
  h.launcher.script("bad", {7});
  CHECK(h.run() == 1);
  CHECK(h.starts_of("bad") == 3);
  CHECK(h.entity("bad").status == Status::Failed);
  CHECK(h.entity("bad").exit_code == 7);
}

TEST_CASE("engine: --resume reruns what failed and what waited on it, not what completed") {
  const std::string yaml = R"(
experiment: {name: res}
models:
  - {name: a, exe: /bin/true}
  - {name: b, exe: /bin/true, after: [a]}
  - {name: c, exe: /bin/true, after: [b]}
)";
  Harness h(yaml);
  h.launcher.script("b", {3});
  CHECK(h.run() == 1);
  CHECK(h.entity("c").status == Status::Cancelled);

  h.m = engine::resume_manifest(h.plan, std::move(h.m));
  test::FakeLauncher again(h.clock);
  engine::Engine e(h.plan, h.m, again, h.progress, std::make_shared<spdlog::logger>("engine-test"), -1,
                   {&h.clock, &h.waiter});
  CHECK(e.run() == 0);
  CHECK(again.started == std::vector<std::string>{"b", "c"});
  CHECK(h.entity("a").attempt == 1);
  CHECK(h.entity("b").attempt == 2);
}

TEST_CASE("engine: a launcher that cannot start is an environment failure (exit 3)") {
  Harness h("experiment: {name: s}\nmodels:\n  - {name: a, exe: /bin/true}\n");
  h.launcher.refuse_start = true;
  CHECK(h.run() == 3);
  CHECK(h.entity("a").status == Status::Failed);
  CHECK(h.entity("a").reason.find("the fake launcher was told to refuse") != std::string::npos);
}

TEST_CASE("engine: Ctrl-C cancels what runs and what has not started") {
  Harness h(R"(
experiment: {name: int}
models:
  - {name: long, exe: /bin/true}
  - {name: later, exe: /bin/true, after: [long]}
)");
  h.launcher.script("long", {0}, 1000);
  h.waiter.signal_at[2] = "SIGINT";
  CHECK(h.run() == 1);
  CHECK(h.launcher.cancelled == std::vector<std::string>{"long"});
  CHECK(h.entity("long").status == Status::Cancelled);
  CHECK(h.entity("later").status == Status::Cancelled);
  CHECK(h.entity("later").reason == "interrupted by SIGINT before it started");
}

TEST_CASE("engine: Ctrl-C while the database starts stops it and starts nothing else") {
  Harness h("experiment: {name: db}\norchestrator: {port: 6999}\nmodels:\n  - {name: a, exe: /bin/true}\n");
  h.launcher.script("orchestrator", {0}, 1000);  // starts, never reports an address
  h.waiter.signal_at[0] = "SIGINT";
  CHECK(h.run() == 1);
  CHECK(h.launcher.started == std::vector<std::string>{"orchestrator"});
  CHECK(h.entity("orchestrator").status == Status::Cancelled);
  CHECK(h.entity("a").status == Status::Cancelled);
}

TEST_CASE("engine: a database that ends before it is ready fails the run, naming it") {
  Harness h("experiment: {name: db}\norchestrator: {port: 6999}\nmodels:\n  - {name: a, exe: /bin/true}\n");
  h.launcher.script("orchestrator", {1});
  h.database.comes_up = false;  // it never reports its address
  try {
    h.run();
    FAIL("the run went on without its database");
  } catch (const EnvironmentError& e) {
    CHECK(std::string(e.what()).find("database orchestrator failed") != std::string::npos);
  }
  CHECK(h.launcher.started == std::vector<std::string>{"orchestrator"});
  CHECK(h.entity("a").status == Status::Cancelled);
  CHECK(h.entity("a").reason == "the database did not come up before it started");
}

TEST_CASE("engine: packed steps wait for CPUs, and never oversubscribe the pool") {
  Harness h(R"(
experiment: {name: pack}
ensembles:
  - name: e
    exe: /bin/true
    params: {x: [1, 2, 3, 4, 5, 6]}
    run: {cpus_per_task: 2}
)");
  h.launcher.set_pool({{"n1", 4, std::nullopt}});
  for (int i = 0; i < 6; ++i) h.launcher.script("e_" + std::to_string(i), {0}, 3);
  CHECK(h.run() == 0);
  CHECK(h.launcher.started.size() == 6);
  CHECK(h.launcher.most_running == 2);  // 4 CPUs, 2 per member
}

TEST_CASE("engine: --detach returns after the first starts, the jobs still tracked by their monitor") {
  Harness h(
      "experiment: {name: det}\nmodels:\n  - {name: a, exe: /bin/true}\n  - {name: b, exe: /bin/true, after: [a]}\n");
  bool called = false;
  engine::EngineHooks hooks;
  hooks.after_first_start = [&] { return called = true, false; };
  CHECK(h.run(hooks) == 0);
  CHECK(called);
  CHECK(h.launcher.started == std::vector<std::string>{"a"});
  CHECK(h.entity("a").status == Status::Pending);
  CHECK(h.entity("b").status == Status::New);
}

TEST_CASE("engine: ssim stop of a retrying entity ends its retries, even when the attempt fails as it comes") {
  Harness h("experiment: {name: st}\nmodels:\n  - {name: flaky, exe: /bin/true, retries: 100}\n");
  h.launcher.script("flaky", {1}, 5);
  h.waiter.on_wait = [&](int) {
    if (h.starts_of("flaky") != 3) return;
    // The third attempt fails on its own just as the stop request arrives.
    h.launcher.end_now("flaky", 1);
    state::post_request(h.plan.path, state::RequestKind::Stop, {"flaky"});
    h.waiter.on_wait = nullptr;
  };
  CHECK(h.run() == 1);
  CHECK(h.starts_of("flaky") == 3);
  CHECK(h.entity("flaky").status == Status::Cancelled);
  CHECK(h.entity("flaky").reason.find("stopped by ssim stop") == 0);
}

TEST_CASE("engine: an entity whose rank had failed before the stop came is failed with that rank's words") {
  Harness h(R"(
experiment: {name: crash}
models:
  - {name: mpi, exe: /bin/true, run: {ntasks: 2}}
  - {name: calm, exe: /bin/true, run: {ntasks: 2}}
)");
  h.launcher.script("mpi", {0}, 1000);
  h.launcher.script("calm", {0}, 1000);
  h.waiter.on_wait = [&](int waits) {
    if (waits == 2) {  // rank 1 fails; its MPI launcher is still ending rank 0
      state::RankEnd end;
      end.rank = 1, end.exit_code = 3, end.end = h.clock.now(), end.host = "n2", end.said = "ValueError: bad input";
      std::ofstream(h.entity("mpi").run_dir + "/" + state::kRankEndsFile) << state::encode_rank_end(end);
    }
    if (waits == 4) {  // calm's rank 0 ends after the stop: the stop's doing
      state::post_request(h.plan.path, state::RequestKind::Stop, {});
      state::RankEnd end;
      end.rank = 0, end.signal = 15, end.end = h.clock.now() + 1;
      std::ofstream(h.entity("calm").run_dir + "/" + state::kRankEndsFile) << state::encode_rank_end(end);
      h.waiter.on_wait = nullptr;
    }
  };
  CHECK(h.run() == 1);
  CHECK(h.entity("mpi").status == Status::Failed);
  CHECK(h.entity("mpi").exit_code == 3);
  CHECK(h.entity("mpi").reason == "rank 1 had failed before the stop");
  CHECK(state::entity_last_error(h.entity("mpi").run_dir, "mpi", 1) == "rank 1 (exit 3, on n2): ValueError: bad input");
  CHECK(h.entity("calm").status == Status::Cancelled);
  CHECK(h.entity("calm").reason == "stopped by ssim stop");
}

TEST_CASE("engine: ssim stop of a pending member keeps it from starting") {
  Harness h(R"(
experiment: {name: sp}
models:
  - {name: first, exe: /bin/true}
ensembles:
  - {name: e, exe: /bin/true, params: {x: [1, 2]}, after: [first]}
)");
  h.launcher.script("first", {0}, 5);
  h.waiter.on_wait = [&](int) {
    state::post_request(h.plan.path, state::RequestKind::Stop, {"e_1"});
    h.waiter.on_wait = nullptr;
  };
  CHECK(h.run() == 1);
  CHECK(h.starts_of("e_0") == 1);
  CHECK(h.starts_of("e_1") == 0);
  CHECK(h.entity("e_1").status == Status::Cancelled);
}

TEST_CASE("engine: held entities never start unless asked, and the run ends with them cancelled") {
  Harness h(R"(
experiment: {name: held}
models:
  - {name: a, exe: /bin/true}
  - {name: b, exe: /bin/true}
  - {name: c, exe: /bin/true, after: [b]}
)");
  h.m.find("b")->held = true;
  CHECK(h.run() == 1);
  CHECK(h.launcher.started == std::vector<std::string>{"a"});
  CHECK(h.entity("b").status == Status::Cancelled);
  CHECK(h.entity("b").reason == "not started: held, and no ssim start asked for it");
  CHECK(h.entity("c").status == Status::Cancelled);
  CHECK(h.entity("c").reason == "not started: waits on a held entity");
}

TEST_CASE("engine: an open run starts held, ended and added entities on request, and ends on ssim stop") {
  Harness h("experiment: {name: open}\nmodels:\n  - {name: a, exe: /bin/true}\n  - {name: b, exe: /bin/true}\n");
  h.m.find("b")->held = true;
  const std::string path = h.plan.path;
  std::string refused_id, unknown_id;
  int reloads = 0;
  engine::EngineHooks hooks;
  hooks.open = true;
  hooks.reload = [&] {
    ++reloads;
    auto p = test::plan_of(
        "experiment: {name: open}\nmodels:\n  - {name: a, exe: /bin/true}\n"
        "  - {name: b, exe: /bin/true}\n  - {name: late, exe: /bin/true, after: [b]}\n",
        h.dir.path.string());
    for (const auto& s : p.steps) std::filesystem::create_directories(s.run_dir);
    return p;
  };
  int step = 0;
  h.waiter.on_wait = [&](int) {
    // One request at a time, each once the previous one was acted on.
    const auto pending = state::pending_requests(path, state::RequestKind::Start);
    if (!pending.empty()) return;
    ++step;
    if (step == 5) CHECK(h.starts_of("b") == 0);  // the run waits, open, with b held
    if (step == 6) state::post_request(path, state::RequestKind::Start, {"b"});
    if (step == 12) unknown_id = state::post_request(path, state::RequestKind::Start, {"nope"});
    if (step == 14) state::post_request(path, state::RequestKind::Start, {"late", "a"});
    if (step == 24) state::post_request(path, state::RequestKind::Stop, {});
  };
  h.run(hooks);
  CHECK(h.starts_of("b") == 1);
  CHECK(h.starts_of("a") == 2);  // ended, asked again: a new attempt
  CHECK(h.entity("a").attempt == 2);
  CHECK(h.entity("a").extra().earlier_attempts.size() == 1);
  CHECK(h.starts_of("late") == 1);  // added from the file read again, after b as it says
  CHECK(h.entity("late").status == Status::Completed);
  CHECK(reloads == 1);  // "nope" was looked for in the file, which added "late" (held) to the run
  const auto refusal = state::take_refusal(path, state::RequestKind::Start, unknown_id);
  REQUIRE(refusal.has_value());
  CHECK(refusal->find("no entity nope in experiment open") == 0);
}

namespace {
std::string env_value(const plan::Env& env, const std::string& name) {
  std::string value;
  for (const auto& [k, v] : env)
    if (k == name) value = v;  // later entries win
  return value;
}
}  // namespace

TEST_CASE("engine: with the database ready, entities start after it with its address, and it shuts down at the end") {
  Harness h("experiment: {name: db}\norchestrator: {port: 6999}\nmodels:\n  - {name: a, exe: /bin/true}\n");
  h.launcher.script("orchestrator", {0}, 1000);  // a server runs until asked to end
  h.launcher.script("a", {0}, 3);
  CHECK(h.run() == 0);
  CHECK(h.launcher.started == std::vector<std::string>{"orchestrator", "a"});
  CHECK(env_value(h.launcher.env_of["a"], "SSDB") == "fakehost:6999");
  CHECK(h.database.shutdown_saves == std::vector<bool>{true});  // snapshot: true by default
  CHECK(h.launcher.cancelled.empty());                          // SHUTDOWN, not a signal
  CHECK(h.entity("orchestrator").status == Status::Completed);
  CHECK(h.progress.count("database ready") == 1);
}

TEST_CASE("engine: a shard that ignores SHUTDOWN is signalled, and the entities' outcome stands") {
  Harness h("experiment: {name: db}\norchestrator: {port: 6999}\nmodels:\n  - {name: a, exe: /bin/true}\n");
  h.launcher.script("orchestrator", {0}, 1000);
  h.database.shuts_down = false;
  CHECK(h.run() == 0);
  CHECK(h.launcher.cancelled == std::vector<std::string>{"orchestrator"});
  CHECK(h.entity("a").status == Status::Completed);
  CHECK(h.entity("orchestrator").status == Status::Cancelled);
  CHECK(h.entity("orchestrator").reason.rfind(engine::kStoppedAtEnd, 0) == 0);
}

TEST_CASE("engine: persist: true leaves the database running after the run") {
  Harness h(
      "experiment: {name: db}\norchestrator: {port: 6999, persist: true}\nmodels:\n  - {name: a, exe: /bin/true}\n");
  h.launcher.script("orchestrator", {0}, 1000);
  CHECK(h.run() == 0);
  CHECK(h.database.shutdown_saves.empty());
  CHECK(h.launcher.cancelled.empty());
  CHECK(h.entity("orchestrator").status == Status::Running);
  CHECK(h.progress.count("persist: true") == 1);
}

TEST_CASE("engine: a database that stops answering is said once, and again when it answers") {
  Harness h("experiment: {name: db}\norchestrator: {port: 6999}\nmodels:\n  - {name: a, exe: /bin/true}\n");
  h.launcher.script("orchestrator", {0}, 100000);
  h.launcher.script("a", {0}, 60);
  h.waiter.on_wait = [&](int waits) {
    if (waits == 5) h.database.answers = false;
    if (waits == 40) h.database.answers = true;
  };
  CHECK(h.run() == 0);
  CHECK(h.progress.count("does not answer") == 1);
  CHECK(h.progress.count("answers again") == 1);
  CHECK(h.database.pings > 2);
}

TEST_CASE("engine: a database that never comes up cancels every entity, and the shard is stopped") {
  Harness h("experiment: {name: db}\norchestrator: {port: 6999}\nmodels:\n  - {name: a, exe: /bin/true}\n");
  h.launcher.script("orchestrator", {0}, 1000);
  h.database.comes_up = false;
  CHECK_THROWS_AS(h.run(), EnvironmentError);
  CHECK(h.launcher.started == std::vector<std::string>{"orchestrator"});
  CHECK(h.entity("a").status == Status::Cancelled);
  CHECK(h.entity("a").reason == "the database did not come up before it started");
  CHECK(state::is_terminal(h.entity("orchestrator").status));  // stopped, not left running
}

TEST_CASE("engine: a node the launcher says is out of use gets nothing more, and the run says why once") {
  Harness h(R"(
experiment: {name: drain}
ensembles:
  - {name: e, exe: /bin/true, replicas: 12}
)");
  h.launcher.set_pool({{"n1", 2, std::nullopt}, {"n2", 2, std::nullopt}});
  for (int i = 0; i < 12; ++i) h.launcher.script("e_" + std::to_string(i), {0}, 3);
  size_t started_before = 0;
  h.waiter.on_wait = [&](int) {
    started_before = h.launcher.started.size();
    h.launcher.out_of_use = {{"n2", "drained by slurm (bad dimm)"}};
    h.waiter.on_wait = nullptr;
  };
  CHECK(h.run() == 0);
  REQUIRE(started_before == 4);  // both nodes full at first
  for (size_t i = started_before; i < h.launcher.started.size(); ++i)
    CHECK(h.launcher.nodes_of[h.launcher.started[i]] == std::vector<std::string>{"n1"});
  CHECK(h.progress.count("node n2 is drained by slurm (bad dimm): nothing more is placed there") == 1);
}

TEST_CASE("engine: a drained node that is resumed is placed on again, and the run says so") {
  Harness h(R"(
experiment: {name: resume}
ensembles:
  - {name: e, exe: /bin/true, replicas: 16}
)");
  h.launcher.set_pool({{"n1", 2, std::nullopt}, {"n2", 2, std::nullopt}});
  for (int i = 0; i < 16; ++i) h.launcher.script("e_" + std::to_string(i), {0}, 3);
  size_t drained_at = 0, resumed_at = 0;
  h.waiter.on_wait = [&](int waits) {
    if (waits == 1) {
      drained_at = h.launcher.started.size();
      h.launcher.out_of_use = {{"n2", "drained by slurm (bad dimm)"}};
    } else if (h.launcher.started.size() >= drained_at + 4 && !resumed_at) {
      resumed_at = h.launcher.started.size();
      h.launcher.out_of_use.clear();  // an administrator resumed it
    }
  };
  CHECK(h.run() == 0);
  REQUIRE(resumed_at > 0);
  bool n2_again = false;
  for (size_t i = drained_at; i < h.launcher.started.size(); ++i) {
    const bool on_n2 = h.launcher.nodes_of[h.launcher.started[i]] == std::vector<std::string>{"n2"};
    if (i < resumed_at) CHECK(!on_n2);
    n2_again = n2_again || on_n2;
  }
  CHECK(n2_again);
  CHECK(h.progress.count("node n2 is back in service: members are placed there again") == 1);
}
