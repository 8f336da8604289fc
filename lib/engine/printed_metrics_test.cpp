#include "lib/engine/printed_metrics.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "lib/state/metrics.hpp"

using namespace ssim;
namespace fs = std::filesystem;

namespace {
struct RunDir {
  fs::path path = fs::temp_directory_path() / ("ssim-printed-" + std::to_string(::getpid()));
  RunDir() { fs::create_directories(path); }
  ~RunDir() { fs::remove_all(path); }
  void print(const std::string& text) const { std::ofstream(path / "p.out", std::ios::app) << text << std::flush; }
  std::vector<std::pair<long long, double>> points() const {  // (step, time) as every reader reads them
    std::vector<std::pair<long long, double>> out;
    for (const auto& p : state::read_metrics(path.string(), "p")) out.emplace_back(p.step.value_or(-1), p.time);
    return out;
  }
};
}  // namespace

TEST_CASE("printed metrics: a lone program's lines are stamped when ssim looks, and the rest read without a time") {
  RunDir dir;
  const std::string run_dir = dir.path.string();
  engine::PrintedMetrics printed;
  dir.print("starting\nssim:metric loss=0.5 step=1\nssim:metric loss=0.4 st");
  printed.look("p", run_dir, 100);
  // The whole line is stamped; the line not ended yet is NAME.out's until it is.
  CHECK(dir.points() == std::vector<std::pair<long long, double>>{{1, 100}});
  dir.print("ep=2\nother output\n");
  printed.look("p", run_dir, 101);
  CHECK(dir.points() == std::vector<std::pair<long long, double>>{{1, 100}, {2, 101}});
  // Printed while no ssim run looked (it was killed): read from NAME.out, with no time.
  dir.print("ssim:metric loss=0.3 step=3\n");
  CHECK(dir.points() == std::vector<std::pair<long long, double>>{{1, 100}, {2, 101}, {3, 0}});
  // A later run (--resume) goes on from what the first one stamped, never twice.
  engine::PrintedMetrics resumed;
  dir.print("ssim:metric loss=0.2 step=4");  // its last line, without a newline
  resumed.end("p", run_dir, 102);
  CHECK(dir.points() == std::vector<std::pair<long long, double>>{{1, 100}, {2, 101}, {3, 102}, {4, 102}});
  CHECK_FALSE(resumed.watching("p"));
}

TEST_CASE("printed metrics: a program that prints no metric line gets no file") {
  RunDir dir;
  engine::PrintedMetrics printed;
  dir.print("hello\nworld\n");
  printed.look("p", dir.path.string(), 100);
  printed.end("p", dir.path.string(), 101);
  CHECK_FALSE(fs::exists(dir.path / "metrics.0.stdout.ndjson"));
}
