#include "lib/state/stdout_stamps.hpp"

#include <catch2/catch.hpp>

#include "lib/state/metrics.hpp"
#include "lib/util/split.hpp"

using namespace ssim::state;

namespace {
std::vector<MetricPoint> points_of(const std::string& text) {
  std::vector<MetricPoint> out;
  for (const auto& line : ssim::split(text, '\n'))
    if (auto p = parse_metric_json(line)) out.push_back(*p);
  return out;
}
}  // namespace

TEST_CASE("stdout stamps: a rank's metric lines are stamped when their newline comes, other output is not kept") {
  StdoutStamper rank1(1);
  // A line in three reads: nothing until its end; other lines give nothing.
  CHECK(rank1.take("epoch done\nssim:metric loss=0.", 10.0).empty());
  CHECK(rank1.take("5 step=3", 10.5).empty());
  const auto first = points_of(rank1.take(" phase=val\nmore text\n", 11.0));
  REQUIRE(first.size() == 1);
  CHECK(first[0].name == "loss");
  CHECK(first[0].value == 0.5);
  CHECK(first[0].step == 3);
  CHECK(first[0].phase == "val");
  CHECK(first[0].rank == 1);  // the wrapper's rank, the line naming none
  CHECK(first[0].time == 11.0);
  CHECK(first[0].source == "stdout");
  // A line naming its rank keeps it; a last line without a newline is stamped at the end.
  CHECK(points_of(rank1.take("ssim:metric acc=0.9 rank=4 step=1\n", 12))[0].rank == 4);
  CHECK(rank1.take("ssim:metric acc=0.95 step=2", 13).empty());
  const auto last = points_of(rank1.finish(14));
  REQUIRE(last.size() == 1);
  CHECK(last[0].time == 14);
}

TEST_CASE("stdout stamps: a metric line that is not the documented form is counted, never a point") {
  StdoutStamper rank0(0);
  const std::string text = rank0.take("ssim:metric loss=abc step=1\nssim:metric ok=1 step=1\n", 20);
  CHECK(points_of(text).size() == 1);
  CHECK(text.find("{\"unreadable\":1,\"time\":20}\n") != std::string::npos);
  // A line past the limit is not kept (nor counted): no program means one.
  StdoutStamper long_line(0);
  CHECK(long_line.take("ssim:metric x=1 " + std::string(kLongestMetricLine, 'y'), 1).empty());
  const auto after = points_of(long_line.take("yy\nssim:metric z=2\n", 2));
  REQUIRE(after.size() == 1);  // the next line is read as any other
  CHECK(after[0].name == "z");
}

TEST_CASE("metric lines: a stamped point reads back the same through both JSON parsers") {
  MetricPoint p;
  p.name = "val/acc";
  p.value = 0.1 + 0.2;
  p.step = 120;
  p.epoch = 3;
  p.phase = "va\"l\n";
  p.rank = 7;
  p.time = 1795928311.7801638;
  p.source = "stdout";
  const std::string line = encode_metric_json(p);
  REQUIRE(line.back() == '\n');
  for (const auto& parsed :
       {parse_metric_json(line.substr(0, line.size() - 1)), parse_metric_json_fully(line.substr(0, line.size() - 1))}) {
    REQUIRE(parsed);
    CHECK(parsed->name == p.name);
    CHECK(parsed->value == p.value);
    CHECK(parsed->step == p.step);
    CHECK(parsed->epoch == p.epoch);
    CHECK(parsed->phase == p.phase);
    CHECK(parsed->rank == p.rank);
    CHECK(parsed->time == p.time);
    CHECK(parsed->source == "stdout");
  }
  // A client's point says nothing of a source: read as the client's.
  CHECK(parse_metric_json(R"({"name":"loss","value":1,"via":3})")->source == "client");
  CHECK(parse_metric_json_fully(R"({"name":"loss","value":1,"via":3})")->source == "client");
}
