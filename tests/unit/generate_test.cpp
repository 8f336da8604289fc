#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include <algorithm>

#include "lib/engine/engine.hpp"
#include "lib/generate/generate.hpp"
#include "lib/state/manifest.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim;
namespace fs = std::filesystem;

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
plan::Plan full_plan(const fs::path& cwd) {
  auto spec = spec::load_experiment(SSIM_FIXTURES "/good/full/experiment.yaml", test::parse_options());
  return plan::build_plan(spec, plan::PlanContext{cwd.string(), "local", ""});
}
}  // namespace

TEST_CASE("generate creates run directories and places copied, linked and configured files") {
  test::TempDir tmp;
  auto plan = full_plan(tmp.path);
  auto result = generate::generate(plan, generate::Existing::Refuse);
  const fs::path root = tmp.path / "runs/streaming";
  CHECK(fs::is_directory(root / ".ssim"));
  CHECK(fs::is_directory(root / "orchestrator"));
  CHECK(fs::is_regular_file(root / "trainer/training_service.py"));
  CHECK(fs::is_symlink(root / "trainer/data"));
  CHECK(fs::is_regular_file(root / "trainer/data/sample.txt"));
  CHECK(slurp(root / "trainer/input.cfg") == "epochs = 100\nentity = trainer\nunknown = ;nope;\n");
  REQUIRE(result.warnings.size() == 1);
  CHECK_THAT(result.warnings[0], Catch::Contains(";nope;"));
  CHECK(fs::is_regular_file(root / "uploader/uploader_7/data_uploader.py"));
}

TEST_CASE("an existing experiment is refused, and --overwrite removes only what ssim owns") {
  test::TempDir tmp;
  auto plan = full_plan(tmp.path);
  generate::check_target(plan, generate::Existing::Refuse);
  generate::generate(plan, generate::Existing::Refuse);
  state::save_manifest(engine::new_manifest(plan, "id1"));
  const fs::path root = tmp.path / "runs/streaming";
  std::ofstream(root / "user-notes.txt") << "keep me";
  std::ofstream(root / "trainer/stale.txt") << "old";
  CHECK_THROWS_AS(generate::check_target(plan, generate::Existing::Refuse), generate::GenerateError);
  generate::check_target(plan, generate::Existing::Overwrite);
  generate::generate(plan, generate::Existing::Overwrite);
  CHECK(fs::exists(root / "user-notes.txt"));
  CHECK_FALSE(fs::exists(root / "trainer/stale.txt"));
  CHECK(fs::exists(root / "trainer/training_service.py"));
}

TEST_CASE("overwriting refuses a directory that is not this ssim experiment") {
  test::TempDir tmp;
  auto plan = full_plan(tmp.path);
  const fs::path root = tmp.path / "runs/streaming";
  fs::create_directories(root / "trainer");
  std::ofstream(root / "trainer/thesis.tex") << "years of work";
  // Not an experiment at all: neither a new run nor --overwrite may touch it.
  CHECK_THROWS_WITH(generate::check_target(plan, generate::Existing::Refuse),
                    Catch::Contains("not an ssim experiment"));
  CHECK_THROWS_WITH(generate::check_target(plan, generate::Existing::Overwrite),
                    Catch::Contains("not an ssim experiment"));
  // An experiment whose manifest does not list trainer/: trainer/ is the user's.
  auto other = plan;
  other.steps.erase(
      std::remove_if(other.steps.begin(), other.steps.end(), [](const plan::Step& s) { return s.name == "trainer"; }),
      other.steps.end());
  fs::create_directories(root / ".ssim");
  state::save_manifest(engine::new_manifest(other, "id1"));
  CHECK_THROWS_WITH(generate::check_target(plan, generate::Existing::Overwrite),
                    Catch::Contains("ssim did not create it"));
  // Another experiment's directory.
  auto renamed = plan;
  renamed.name = "another";
  CHECK_THROWS_WITH(generate::check_target(renamed, generate::Existing::Overwrite),
                    Catch::Contains("holds experiment streaming"));
  CHECK(fs::exists(root / "trainer/thesis.tex"));
}

TEST_CASE("copied folders keep their links as links, so a link to a parent is no loop") {
  test::TempDir tmp;
  fs::create_directories(tmp.path / "in/data");
  std::ofstream(tmp.path / "in/data/a.txt") << "a";
  fs::create_directory_symlink("..", tmp.path / "in/data/up");
  plan::Plan plan;
  plan.name = "x";
  plan.path = (tmp.path / "exp").string();
  plan::Step s;
  s.name = "m";
  s.run_dir = (tmp.path / "exp/m").string();
  s.edit().copy = {(tmp.path / "in/data").string()};
  plan.steps.push_back(s);
  generate::generate(plan, generate::Existing::Refuse);
  CHECK(fs::is_regular_file(tmp.path / "exp/m/data/a.txt"));
  CHECK(fs::is_symlink(tmp.path / "exp/m/data/up"));
}

TEST_CASE("resume keeps existing run directories as they are") {
  test::TempDir tmp;
  auto plan = full_plan(tmp.path);
  generate::generate(plan, generate::Existing::Refuse);
  const fs::path root = tmp.path / "runs/streaming";
  std::ofstream(root / "trainer/result.txt") << "done";
  generate::generate(plan, generate::Existing::Resume);
  CHECK(fs::exists(root / "trainer/result.txt"));
}

TEST_CASE("a file where the experiment directory should be is an error") {
  test::TempDir tmp;
  auto plan = full_plan(tmp.path);
  fs::create_directories(tmp.path / "runs");
  std::ofstream(tmp.path / "runs/streaming") << "x";
  CHECK_THROWS_AS(generate::check_target(plan, generate::Existing::Overwrite), generate::GenerateError);
}
