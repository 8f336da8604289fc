#include <catch2/catch.hpp>

#include "lib/plan/resources.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim;

namespace {
std::string env_of(const plan::Step& s, const std::string& key) {
  std::string v;
  for (const auto& [k, val] : plan::step_env(s))
    if (k == key) v = val;  // later entries win
  return v;
}
std::vector<std::string> names(const plan::Plan& p) {
  std::vector<std::string> out;
  for (const auto& s : p.steps) out.push_back(s.name);
  return out;
}
}  // namespace

TEST_CASE("all_perm: last parameter fastest, replicas repeat each combination") {
  auto p = test::plan_of(
      "experiment: {name: x}\nensembles:\n  - name: e\n    exe: run\n    replicas: 2\n"
      "    params: {a: [1, 2], b: [x, y]}\n    args: [\"$(a)$(b)\"]\n");
  REQUIRE(p.steps.size() == 8);
  std::vector<std::string> args;
  for (const auto& s : p.steps) args.push_back(s.program->args[0]);
  CHECK(args == std::vector<std::string>{"1x", "1x", "1y", "1y", "2x", "2x", "2y", "2y"});
  CHECK(p.steps[7].name == "e_7");
  CHECK(p.steps[7].run_dir == "/work/x/e/e_7");
  CHECK(env_of(p.steps[7], "SSIM_REPLICA") == "1");  // the second copy of (2, y)
  CHECK(env_of(p.steps[7], "SSIM_MEMBER_INDEX") == "7");
}

TEST_CASE("$(replica) is the copy of a combination, $(member_index) the place in the ensemble") {
  auto p = test::plan_of(
      "experiment: {name: x}\nensembles:\n  - name: e\n    exe: run\n    replicas: 3\n"
      "    params: {a: [1, 2]}\n    args: [\"$(a).$(replica).$(member_index)\", \"$$(replica)\"]\n");
  std::vector<std::string> args;
  for (const auto& s : p.steps) args.push_back(s.program->args[0]);
  CHECK(args == std::vector<std::string>{"1.0.0", "1.1.1", "1.2.2", "2.0.3", "2.1.4", "2.2.5"});
  CHECK(p.steps[0].program->args[1] == "$(replica)");
}

TEST_CASE("step zips the lists") {
  auto p = test::plan_of(
      "experiment: {name: x}\nensembles:\n  - name: e\n    exe: run\n    strategy: step\n"
      "    params: {a: [1, 2, 3], b: [x, y, z]}\n    args: [\"$(a)$(b)\"]\n");
  REQUIRE(p.steps.size() == 3);
  CHECK(p.steps[2].program->args[0] == "3z");
}

TEST_CASE("random draws `samples` combinations, the same for the same seed") {
  const std::string base =
      "experiment: {name: x}\nensembles:\n  - name: e\n    exe: run\n    strategy: random\n"
      "    samples: 6\n    params: {a: [1, 2, 3, 4, 5, 6, 7, 8, 9]}\n    args: [\"$(a)\"]\n";
  auto args_of = [](const plan::Plan& p) {
    std::vector<std::string> out;
    for (const auto& s : p.steps) out.push_back(s.program->args[0]);
    return out;
  };
  auto a = test::plan_of(base + "    seed: 7\n");
  auto b = test::plan_of(base + "    seed: 7\n");
  auto c = test::plan_of(base + "    seed: 8\n");
  REQUIRE(a.steps.size() == 6);
  CHECK(args_of(a) == args_of(b));
  CHECK(args_of(a) != args_of(c));
}

TEST_CASE("run values are substituted, then type-checked") {
  auto p = test::plan_of(
      "experiment: {name: x}\nensembles:\n  - name: e\n    exe: run\n"
      "    params: {workers: [2, 4]}\n    run: {ntasks: \"$(workers)\", mpi: mpirun}\n");
  CHECK(p.steps[0].program->res.ntasks == 2);
  CHECK(p.steps[1].program->res.ntasks == 4);
  CHECK(p.steps[1].program->res.mpi == plan::MpiKind::Mpirun);
}

TEST_CASE("built-ins and $$ in args and env") {
  auto p = test::plan_of(
      "experiment: {name: ex, env: {WHERE: \"$(run_dir)\"}}\nmodels:\n  - name: m\n    exe: echo\n"
      "    args: [\"$(entity)\", \"$(experiment)\", \"$$(entity)\", \"$$HOME\"]\n"
      "    env: {COST: \"$$5\"}\n");
  const auto& s = p.steps[0];
  CHECK(s.program->args == std::vector<std::string>{"m", "ex", "$(entity)", "$HOME"});
  CHECK(env_of(s, "WHERE") == "/work/ex/m");
  CHECK(env_of(s, "COST") == "$5");
}

TEST_CASE("environment: members share what is equal, and ssim's own variables win over the file's") {
  auto p = test::plan_of(
      "experiment: {name: x, path: /runs/x, env: {SSDB: mine, OMP_NUM_THREADS: '2'}}\norchestrator: {}\n"
      "ensembles:\n  - {name: same, exe: u, replicas: 1000}\n"
      "  - {name: own, exe: u, params: {n: [1, 2, 3]}, env: {N: '$(n)'}}\n");
  REQUIRE(p.steps.size() == 1003);
  for (const auto& s : p.steps) REQUIRE(s.shared_env);
  CHECK(p.steps[0].shared_env == p.steps[999].shared_env);      // one copy for the thousand
  CHECK(p.steps[1000].shared_env != p.steps[1001].shared_env);  // N differs per member
  CHECK(env_of(p.steps[1001], "N") == "2");
  CHECK(env_of(p.steps[1001], "SSIM_PARAM_n") == "2");
  CHECK(env_of(p.steps[999], "SSIM_MEMBER_INDEX") == "999");
  CHECK(env_of(p.steps[999], "SSIM_ENTITY") == "same_999");
  CHECK(env_of(p.steps[0], "OMP_NUM_THREADS") == "2");
  CHECK(env_of(p.steps[0], "SSDB") == plan::kSsdbPlaceholder);  // later entries win
}

TEST_CASE("environment: SSKEYOUT, SSKEYIN with ensembles expanded, SSDB placeholders") {
  auto p = test::plan_of(
      "experiment: {name: x, path: /runs/x}\norchestrator: {}\n"
      "models:\n  - name: trainer\n    exe: t\n    incoming: [up, solo]\n"
      "  - name: solo\n    exe: s\n    key_prefixing: true\n"
      "ensembles:\n  - name: up\n    exe: u\n    replicas: 3\n    key_prefixing: true\n");
  CHECK(names(p) == std::vector<std::string>{"trainer", "solo", "up_0", "up_1", "up_2"});
  CHECK(env_of(p.steps[0], "SSKEYIN") == "up_0,up_1,up_2,solo");
  CHECK(env_of(p.steps[0], "SSKEYOUT").empty());
  CHECK(env_of(p.steps[3], "SSKEYOUT") == "up_1");
  CHECK(env_of(p.steps[0], "SSDB") == plan::kSsdbPlaceholder);
  CHECK(env_of(p.steps[0], "SSDB_PASSWORD") == plan::kPasswordPlaceholder);
  CHECK(env_of(p.steps[0], "SSIM_RUN_DIR") == "/runs/x/trainer");
  CHECK(p.database->run_dir == "/runs/x/orchestrator");
}

TEST_CASE("no password variable with password: none, no SSDB without an orchestrator") {
  auto p = test::plan_of("experiment: {name: x}\norchestrator: {password: none}\nmodels:\n  - {name: m, exe: t}\n");
  CHECK(env_of(p.steps[0], "SSDB_PASSWORD").empty());
  auto q = test::plan_of("experiment: {name: x}\nmodels:\n  - {name: m, exe: t}\n");
  CHECK(env_of(q.steps[0], "SSDB").empty());
}

TEST_CASE("after: naming an ensemble waits for all of its members") {
  auto p = test::plan_of(
      "experiment: {name: x}\nmodels:\n  - {name: m, exe: t, after: [e]}\n"
      "ensembles:\n  - {name: e, exe: u, replicas: 2}\n");
  CHECK(p.steps[0].after == std::vector<std::string>{"e_0", "e_1"});
}

TEST_CASE("a relative exe with a slash resolves against the YAML directory") {
  auto p =
      plan::build_plan(test::parse("experiment: {name: x}\nmodels:\n  - {name: m, exe: ./bin/sim}\n", "/home/u/exp"),
                       plan::PlanContext{"/tmp", "local", ""});
  CHECK(p.steps[0].program->exe == "/home/u/exp/bin/sim");
  CHECK(p.path == "/tmp/x");
}

TEST_CASE("run.time in seconds, in every form Slurm accepts") {
  CHECK(plan::time_seconds("") == 0);
  CHECK(plan::time_seconds("90") == 90 * 60);
  CHECK(plan::time_seconds("0:02") == 2);
  CHECK(plan::time_seconds("10:30") == 10 * 60 + 30);
  CHECK(plan::time_seconds("02:00:00") == 7200);
  CHECK(plan::time_seconds("1-00") == 86400);
  CHECK(plan::time_seconds("1-02:03") == 86400 + 2 * 3600 + 3 * 60);
  CHECK(plan::time_seconds("2-00:00:05") == 2 * 86400 + 5);
}

TEST_CASE("exe: python3 is the Python the experiment, SSIM_PYTHON or the build name, a path is kept") {
  const std::string yaml =
      "experiment: {name: py}\nmodels:\n  - {name: a, exe: python3}\n  - {name: b, exe: python}\n"
      "  - {name: c, exe: /opt/other/python3}\n  - {name: d, exe: python3.11}\n";
  auto exe_of = [](const plan::Plan& p, const std::string& name) {
    for (const auto& s : p.steps)
      if (s.name == name) return s.program->exe;
    return std::string();
  };
  const auto context = plan::build_plan(test::parse(yaml), plan::PlanContext{"/tmp", "local", "/venv/bin/python3"});
  CHECK(exe_of(context, "a") == "/venv/bin/python3");
  CHECK(exe_of(context, "b") == "/venv/bin/python3");
  CHECK(exe_of(context, "c") == "/opt/other/python3");
  CHECK(exe_of(context, "d") == "python3.11");
  const auto none = plan::build_plan(test::parse(yaml), plan::PlanContext{"/tmp", "local", ""});
  CHECK(exe_of(none, "a") == "python3");  // left to PATH
  const std::string chosen =
      "experiment: {name: py, python: /conda/bin/python}\nmodels:\n  - {name: a, exe: python3}\n";
  CHECK(exe_of(plan::build_plan(test::parse(chosen), plan::PlanContext{"/tmp", "local", "/venv/bin/python3"}), "a") ==
        "/conda/bin/python");
}

TEST_CASE("an ensemble's members share one program unless their parameters make it differ") {
  auto p = test::plan_of(
      "experiment: {name: x}\nensembles:\n  - name: e\n    exe: run\n    replicas: 2\n"
      "    params: {a: [1, 2]}\n    args: [\"$(a)\"]\n  - name: f\n    exe: run\n    replicas: 3\n");
  REQUIRE(p.steps.size() == 7);
  CHECK(p.steps[0].program == p.steps[1].program);  // a=1, twice
  CHECK(p.steps[1].program != p.steps[2].program);  // a=2
  CHECK(p.steps[2].program->args == std::vector<std::string>{"2"});
  CHECK(p.steps[4].program == p.steps[6].program);
  // Changing one member's program leaves the others' alone.
  plan::Step changed = p.steps[5];
  changed.edit().args = {"mine"};
  CHECK(changed.program != p.steps[5].program);
  CHECK(p.steps[5].program->args.empty());
  CHECK(p.steps[6].program->args.empty());
}
