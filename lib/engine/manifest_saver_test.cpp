#include "lib/engine/manifest_saver.hpp"

#include <spdlog/sinks/null_sink.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "tests/unit/fake_launcher.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim;
using test::FakeClock;
using test::TempDir;

TEST_CASE("manifest saver: saves at once, then at most every second while changes come") {
  TempDir dir;
  state::Manifest m;
  m.path = dir.path.string();
  const std::string file = state::manifest_path(m.path);
  std::filesystem::create_directories(std::filesystem::path(file).parent_path());
  std::map<std::string, const plan::Step*> steps;
  FakeClock clock;
  spdlog::logger log("test", std::make_shared<spdlog::sinks::null_sink_mt>());
  std::vector<engine::Event> said;
  engine::RunContext run{m, steps, clock, log, [&](const engine::Event& e) { said.push_back(e); }, {}};
  engine::ManifestSaver saver;

  saver.save(run);
  REQUIRE(std::filesystem::exists(file));
  m.experiment = "changed";
  saver.save_soon(run);  // within the second: kept for later
  CHECK(run.dirty);
  CHECK(state::load_manifest(m.path).experiment != "changed");
  clock.sleep(std::chrono::milliseconds(1000));
  saver.save_soon(run);
  CHECK_FALSE(run.dirty);
  CHECK(state::load_manifest(m.path).experiment == "changed");
  CHECK(said.empty());
}

TEST_CASE("manifest saver: a manifest that cannot be written is said once and the run goes on") {
  TempDir dir;
  state::Manifest m;
  std::ofstream(dir.path / "file") << "not a folder\n";
  m.path = (dir.path / "file" / "exp").string();  // its .ssim folder cannot be made
  std::map<std::string, const plan::Step*> steps;
  FakeClock clock;
  spdlog::logger log("test", std::make_shared<spdlog::sinks::null_sink_mt>());
  std::vector<engine::Event> said;
  engine::RunContext run{m, steps, clock, log, [&](const engine::Event& e) { said.push_back(e); }, {}};
  engine::ManifestSaver saver;
  saver.save(run);
  saver.save(run);
  CHECK(said.size() == 1);
  CHECK_FALSE(std::filesystem::exists(state::manifest_path(m.path)));
}
