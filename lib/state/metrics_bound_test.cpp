#include "lib/state/metrics_bound.hpp"

#include <sys/file.h>
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "lib/util/atomic_file.hpp"

using namespace ssim::state;
namespace fs = std::filesystem;

namespace {

std::string point(const std::string& name, double value, long long step, const std::string& phase = "") {
  std::string line =
      "{\"name\":\"" + name + "\",\"value\":" + std::to_string(value) + ",\"rank\":0,\"step\":" + std::to_string(step);
  if (!phase.empty()) line += ",\"phase\":\"" + phase + "\"";
  return line + "}\n";
}

std::string joined(const std::vector<std::string_view>& lines) {
  std::string out;
  for (auto l : lines) out += l;
  return out;
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("ssim-metrics-bound-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("thinning keeps every other point of each series, its first and its last") {
  std::string text;
  for (int i = 0; i < 10; ++i) text += point("loss", 1.0 / (i + 1), i) + point("loss", 0.5, i, "val");
  const auto kept = thin_metric_lines(text, nullptr);
  const auto points = [&] {
    std::vector<MetricPoint> out;
    for (auto l : kept) out.push_back(*parse_metric_json(std::string(l.substr(0, l.size() - 1))));
    return out;
  }();
  std::vector<long long> train, val;
  for (const auto& p : points) (p.phase == "val" ? val : train).push_back(*p.step);
  CHECK(train == std::vector<long long>{0, 2, 4, 6, 8, 9});
  CHECK(val == std::vector<long long>{0, 2, 4, 6, 8, 9});
  // In the order they were written.
  CHECK(kept.front() == point("loss", 1.0, 0));
  CHECK(kept.back() == point("loss", 0.5, 9, "val"));
}

TEST_CASE("thinning keeps the first point that meets the goal and the highest step") {
  std::string text;
  for (int i = 0; i < 9; ++i) text += point("acc", i == 3 ? 0.85 : 0.1 * i / 10, i);
  text += point("acc", 0.2, 20) + point("acc", 0.3, 7);  // a restart: the highest step is not last
  const Goal goal{"acc", true, 0.8, false};
  const std::string thinned = joined(thin_metric_lines(text, &goal));
  CHECK(thinned.find(point("acc", 0.85, 3)) != std::string::npos);
  CHECK(thinned.find(point("acc", 0.2, 20)) != std::string::npos);
  CHECK(thinned.find(point("acc", 0.3, 7)) != std::string::npos);
  CHECK(thinned.find(point("acc", 0.01, 1)) == std::string::npos);
  // What the status reads is the same before and after.
  std::vector<MetricPoint> before, after;
  for (auto l : thin_metric_lines(text, nullptr)) (void)l;
  auto parse_all = [](const std::string& t) {
    std::vector<MetricPoint> out;
    size_t at = 0;
    for (size_t nl; (nl = t.find('\n', at)) != std::string::npos; at = nl + 1)
      if (auto p = parse_metric_json(t.substr(at, nl - at))) out.push_back(*p);
    return out;
  };
  before = parse_all(text), after = parse_all(thinned);
  CHECK(goal_reached(goal, before, 0)->step == goal_reached(goal, after, 0)->step);
  CHECK(latest_metrics(before).at("acc").step == latest_metrics(after).at("acc").step);
}

TEST_CASE("thinning drops a torn last line and lines that are no point") {
  const std::string text = point("loss", 1, 0) + "garbage\n" + point("loss", 2, 1) + "{\"name\":\"loss\",\"va";
  CHECK(joined(thin_metric_lines(text, nullptr)) == point("loss", 1, 0) + point("loss", 2, 1));
}

TEST_CASE("a metrics file past its limit is thinned under half of it and one under it is left alone") {
  TempDir dir;
  const std::string path = (dir.path / "metrics.0.ndjson").string();
  std::string text;
  for (int i = 0; i < 4000; ++i) text += point("loss", 1.0 / (i + 1), i);
  ssim::write_file_atomically(path, text);
  CHECK_FALSE(bound_metrics_file(path, text.size(), nullptr));
  CHECK(fs::file_size(path) == text.size());
  const std::uintmax_t limit = text.size() / 3;
  CHECK(bound_metrics_file(path, limit, nullptr));
  const auto size = fs::file_size(path);
  CHECK(size <= limit / 2);
  CHECK(size > limit / 8);  // thinned as much as needed, not emptied
  const auto thinned = *ssim::read_file(path);
  CHECK(thinned.rfind(point("loss", 1.0 / 4000, 3999)) == thinned.size() - point("loss", 1.0 / 4000, 3999).size());
}

TEST_CASE("a metrics file whose lock a writer holds is left for the next time") {
  TempDir dir;
  const std::string path = (dir.path / "metrics.0.ndjson").string();
  std::string text;
  for (int i = 0; i < 1000; ++i) text += point("loss", 1, i);
  ssim::write_file_atomically(path, text);
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX) == 0);
  CHECK_FALSE(bound_metrics_file(path, 4096, nullptr));
  ::close(fd);
  CHECK(bound_metrics_file(path, 4096, nullptr));
}

TEST_CASE("the metrics limit comes from SSIM_METRICS_LIMIT, and a value that is no size is said") {
  std::string problem;
  ::unsetenv("SSIM_METRICS_LIMIT");
  CHECK(metrics_file_limit(&problem) == (16u << 20));
  CHECK(problem.empty());
  ::setenv("SSIM_METRICS_LIMIT", "65536", 1);
  CHECK(metrics_file_limit(&problem) == 65536);
  CHECK(problem.empty());
  for (const char* bad : {"64k", "100", "-5"}) {
    ::setenv("SSIM_METRICS_LIMIT", bad, 1);
    CHECK(metrics_file_limit(&problem) == (16u << 20));
    CHECK(problem.find(std::string("SSIM_METRICS_LIMIT=") + bad) == 0);
    problem.clear();
  }
  ::unsetenv("SSIM_METRICS_LIMIT");
}
