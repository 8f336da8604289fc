#include "lib/engine/manifest_saver.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "tests/unit/helpers.hpp"
#include "tests/unit/run_rig.hpp"

using namespace ssim;
using test::TempDir;

TEST_CASE("manifest saver: saves at once, then at most every second while changes come") {
  TempDir dir;
  test::RunRig rig;
  state::Manifest& m = rig.m;
  m.path = dir.path.string();
  const std::string file = state::manifest_path(m.path);
  std::filesystem::create_directories(std::filesystem::path(file).parent_path());
  auto& run = rig.run;
  engine::ManifestSaver saver;

  saver.save(run);
  REQUIRE(std::filesystem::exists(file));
  m.experiment = "changed";
  saver.save_soon(run);  // within the second: kept for later
  CHECK(run.dirty);
  CHECK(state::load_manifest(m.path).experiment != "changed");
  rig.clock.sleep(std::chrono::milliseconds(1000));
  saver.save_soon(run);
  CHECK_FALSE(run.dirty);
  CHECK(state::load_manifest(m.path).experiment == "changed");
  CHECK(rig.said.empty());
}

TEST_CASE("manifest saver: a manifest that cannot be written is said once and the run goes on") {
  TempDir dir;
  test::RunRig rig;
  state::Manifest& m = rig.m;
  std::ofstream(dir.path / "file") << "not a folder\n";
  m.path = (dir.path / "file" / "exp").string();  // its .ssim folder cannot be made
  auto& run = rig.run;
  engine::ManifestSaver saver;
  saver.save(run);
  saver.save(run);
  CHECK(rig.said.size() == 1);
  CHECK_FALSE(std::filesystem::exists(state::manifest_path(m.path)));
}
