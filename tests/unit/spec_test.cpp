#include <catch2/catch.hpp>

#include "lib/spec/yaml_reader.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim;

TEST_CASE("the full example file parses every field of docs/experiment-file.md") {
  const auto s = spec::load_experiment(SSIM_FIXTURES "/good/full/experiment.yaml", test::parse_options());
  CHECK(s.name == "streaming");
  CHECK(s.path == "runs/streaming");
  CHECK(s.launcher == "auto");
  REQUIRE(s.env.size() == 1);
  CHECK(s.env[0].first == "OMP_NUM_THREADS");
  CHECK(s.env[0].second.value == "4");
  CHECK(s.setup == std::vector<std::string>{"module load openmpi"});
  REQUIRE(s.allocation);
  CHECK(s.allocation->nodes == 4);
  CHECK(s.allocation->time == "03:00:00");
  CHECK(s.allocation->account == "proj123");
  CHECK(s.allocation->queue == "spider");
  CHECK(s.allocation->options[0].first == "constraint");
  REQUIRE(s.batch);
  CHECK(s.batch->queue == "debug");
  CHECK(s.batch->options[0].second.value == "gpu:2");
  REQUIRE(s.orchestrator);
  const auto& o = *s.orchestrator;
  CHECK(o.port == 6780);
  CHECK(o.shards == 1);
  CHECK(o.interface == "ib0");
  CHECK(o.binary == "redis-server");
  CHECK(o.config == std::vector<std::pair<std::string, std::string>>{{"maxmemory", "8gb"}});
  CHECK(o.password == spec::PasswordMode::Auto);
  CHECK_FALSE(o.persist);
  CHECK(o.run.fields[0].first == "cpus_per_task");
  REQUIRE(o.batch);
  CHECK(o.batch->time == "01:00:00");

  REQUIRE(s.entities.size() == 3);
  const auto& t = s.entities[0];
  CHECK(t.name == "trainer");
  CHECK(t.kind == spec::EntityKind::Model);
  CHECK(t.exe.value == "python3");
  CHECK(t.args.size() == 3);
  CHECK(t.params[0].name == "epochs");
  CHECK(t.run.fields.size() == 8);
  CHECK(t.run.hosts[0].value == "gpu01");
  CHECK(t.run.launcher_args[0].first == "cpu-bind");
  CHECK(t.files.copy[0].value == "tf/training_service.py");
  CHECK(t.files.symlink[0].value == "data/");
  CHECK(t.files.configure[0].value == "input.cfg");
  CHECK(t.incoming[0].value == "uploader");
  CHECK(t.after[0].value == "prepare");
  CHECK(t.batch->nodes == 1);
  const auto& u = s.entities[2];
  CHECK(u.kind == spec::EntityKind::Ensemble);
  CHECK(u.replicas == 2);
  CHECK(u.key_prefixing);
  CHECK(u.strategy == spec::Strategy::AllPerm);
  CHECK(u.params.size() == 2);
  CHECK(u.params[1].values.size() == 2);
}

TEST_CASE("positions are 1-based line and column of the offending value") {
  CHECK(test::error_of("experiment:\n  name: x\nmodels:\n  - name: a\n    exe: /bin/true\n    run: {ntasks: two}\n") ==
        "exp.yaml:6:19: models[0].run.ntasks: expected a positive integer, got \"two\"");
}

TEST_CASE("duplicated keys are errors even deep down") {
  CHECK(test::error_of("experiment:\n  name: x\nmodels:\n  - name: a\n    exe: b\n    env: {A: 1, A: 2}\n") ==
        "exp.yaml:6:17: models[0].env.A: duplicated key");
}

TEST_CASE("entities are kept in file order across models and ensembles") {
  auto s = test::parse("experiment: {name: x}\nensembles:\n  - {name: e, exe: a}\nmodels:\n  - {name: m, exe: b}\n");
  CHECK(s.entities[0].name == "e");
  CHECK(s.entities[1].name == "m");
}

TEST_CASE("a model named like an ensemble member is refused") {
  CHECK_THAT(
      test::error_of("experiment: {name: x}\nmodels:\n  - {name: e_0, exe: a}\nensembles:\n  - {name: e, exe: b}\n"),
      Catch::Contains("clashes with a member name"));
}

TEST_CASE("null sections count as empty, not as errors") {
  auto s = test::parse("experiment:\n  name: x\n  env:\nmodels:\nensembles: [{name: e, exe: a}]\n");
  CHECK(s.env.empty());
  CHECK(s.entities.size() == 1);
}

TEST_CASE("an experiment with nothing to run is an error") {
  CHECK(test::error_of("experiment:\n  name: x\nmodels:\n") ==
        "exp.yaml:1:1: models: the experiment has no models and no ensembles: nothing to run");
}

TEST_CASE("member counts are checked before anything is built") {
  std::string params;
  for (char c = 'a'; c < 'a' + 8; ++c)
    params += std::string(params.empty() ? "" : ", ") + c + ": [1,2,3,4,5,6,7,8,9,10]";
  const std::string bomb = "experiment: {name: x}\nensembles:\n  - {name: e, exe: a, params: {" + params + "}}\n";
  CHECK_THAT(test::error_of(bomb), Catch::Contains("expands to 100000000 members, over the limit of 100000"));
  CHECK_THAT(test::error_of("experiment: {name: x}\nensembles:\n  - {name: e, exe: a, replicas: 1000000, params: "
                            "{a: [1,2,3,4,5,6,7,8,9,10]}}\n"),
             Catch::Contains("expands to 10000000 members"));
  CHECK_THAT(test::error_of("experiment: {name: x}\nensembles:\n  - {name: e, exe: a, strategy: random, samples: 3, "
                            "params: {a: [1, 2]}}\n"),
             Catch::Contains("samples: 3 is more than the 2 distinct combinations"));
}

TEST_CASE("messages escape control bytes and cut long values") {
  const std::string err =
      test::error_of("experiment: {name: x, launcher: \"\\e[31mred\\x01" + std::string(500, 'a') + "\"}\nmodels: []\n");
  CHECK_THAT(err, Catch::Contains("\\x1b[31mred\\x01aaa"));
  CHECK(err.find('\x1b') == std::string::npos);
  CHECK(err.size() < 300);
}

TEST_CASE("times: minutes and seconds go to 59, hours after a day count to 23") {
  for (const char* ok : {"90", "10:30", "48:00:00", "1-00", "2-23:59:59", "100:59"}) CHECK(spec::is_slurm_time(ok));
  for (const char* bad : {"10:75", "01:60:00", "1-24:00", "00:00:99", "1:2:3:4", "-1", ""})
    CHECK_FALSE(spec::is_slurm_time(bad));
}

TEST_CASE("a goal names a metric and one bound, or says which part is wrong") {
  const std::string head = "experiment:\n  name: x\nmodels:\n  - name: a\n    exe: /bin/true\n";
  auto s = test::parse(head + "    goal: {metric: val_acc, at_least: 0.8, stop_on_goal: true}\n");
  REQUIRE(s.entities[0].goal);
  CHECK(s.entities[0].goal->metric == "val_acc");
  CHECK(s.entities[0].goal->at_least);
  CHECK(s.entities[0].goal->target == 0.8);
  CHECK(s.entities[0].goal->stop);
  CHECK(!test::parse(head + "    goal: {metric: loss, at_most: 1e-3}\n").entities[0].goal->at_least);
  CHECK(test::error_of(head + "    goal: {metric: loss, at_most: low}\n") ==
        "exp.yaml:6:35: models[0].goal.at_most: expected a number, got \"low\"");
  CHECK(test::error_of(head + "    goal: {metric: loss, at_most: 1, at_least: 0}\n") ==
        "exp.yaml:6:35: models[0].goal.at_most: give at_least or at_most, not both");
  CHECK(test::error_of(head + "    goal: {metric: loss}\n") ==
        "exp.yaml:6:11: models[0].goal: needs at_least: NUMBER or at_most: NUMBER");
  CHECK(test::error_of(head + "    goal: {metric: 9lives, at_least: 1}\n") ==
        "exp.yaml:6:20: models[0].goal.metric: \"9lives\" is not a metric name (letters, digits, _ . - /, starting "
        "with a letter)");
  CHECK(test::error_of(head + "    goal: {at_least: 1}\n") ==
        "exp.yaml:6:11: models[0].goal.metric: missing (the metric the goal is about, as the program reports it)");
}
