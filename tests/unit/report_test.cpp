#include <catch2/catch.hpp>

#include "lib/report/html.hpp"
#include "lib/orchestrator/shard_samples.hpp"
#include "lib/report/report.hpp"

using namespace ssim;
using namespace ssim::report;

namespace {
state::EntityRecord entity(const std::string& name, const std::string& ensemble, state::Status s, double start,
                           double end, std::map<std::string, std::string> params = {}) {
  state::EntityRecord e;
  e.name = name;
  e.type = ensemble.empty() ? state::EntityKind::Model : state::EntityKind::Member;
  e.ensemble = ensemble;
  e.status = s;
  e.start = start;
  e.end = end;
  e.extra_mut().params = std::move(params);
  return e;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t i = text.find(what); i != std::string::npos; i = text.find(what, i + 1)) ++n;
  return n;
}

ReportInput sweep() {
  ReportInput in;
  in.now = 1000;
  auto& m = in.manifest;
  m.experiment = "sweep";
  m.path = "/runs/sweep";
  m.launcher = "local";
  m.created = 100;
  m.finished = 200;
  m.file = "/work/experiment.yaml";
  state::EntityRecord db = entity("orchestrator", "", state::Status::Completed, 100, 200);
  db.type = state::EntityKind::Database;
  m.entities.push_back(db);
  m.entities.push_back(entity("prep", "", state::Status::Completed, 101, 102));
  for (int i = 0; i < 4; ++i)
    m.entities.push_back(entity("sim_" + std::to_string(i), "sim",
                                i == 3 ? state::Status::Failed : state::Status::Completed, 102, 103 + i,
                                {{"n", std::to_string(i + 1)}, {"mode", i % 2 ? "slow" : "fast"}}));
  m.entities.back().exit_code = 5;
  in.stderr_tails["sim_3"] = "boom <b>bad</b>";
  in.experiment_file = "experiment: {name: sweep}  # <script>";
  return in;
}
}  // namespace

TEST_CASE("duration and number texts") {
  CHECK(duration_text(3.14159) == "3.14 s");
  CHECK(duration_text(0.005) == "5 ms");  // a short run's ticks: not "0 s" at every one
  CHECK(duration_text(0.0125) == "12.5 ms");
  CHECK(duration_text(0) == "0 s");
  CHECK(duration_text(42.25) == "42.2 s");
  CHECK(duration_text(125) == "2 min 05 s");
  CHECK(duration_text(7380) == "2 h 03 min");
  CHECK(number(1.50) == "1.5");
  CHECK(number(2.0) == "2");
  CHECK(escape("<a href=\"x\">&'") == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
}

TEST_CASE("the report has every entity, the sweep and the failure, and escapes what users wrote") {
  const std::string html = render_report(sweep());
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(html.find("<script") == std::string::npos);  // self-contained, and the file's text escaped
  CHECK(html.find("http") == std::string::npos);     // nothing fetched
  for (const char* name : {"orchestrator", "prep", "sim_0", "sim_1", "sim_2", "sim_3"})
    CHECK(html.find(std::string("<title>") + name + ": ") != std::string::npos);  // a timeline bar each
  CHECK(html.find("5 completed") == std::string::npos);                           // the database is not counted
  CHECK(html.find(">4 completed<") != std::string::npos);
  CHECK(html.find(">1 failed<") != std::string::npos);
  CHECK(html.find("exit code 1: 1 failed") != std::string::npos);
  // The failure: its stderr, escaped, and how to see the rest.
  CHECK(html.find("boom &lt;b&gt;bad&lt;/b&gt;") != std::string::npos);
  CHECK(html.find("ssim logs /runs/sweep sim_3 --stderr") != std::string::npos);
  // The sweep: a runtime-against-n plot (numeric), none for mode, and the table.
  CHECK(html.find("against <b>n</b>") != std::string::npos);
  CHECK(html.find("against <b>mode</b>") == std::string::npos);
  CHECK(count(html, "<circle") == 4);
  CHECK(html.find("<th>mode</th>") != std::string::npos);
  CHECK(html.find("4 ended: min 1 s, median 3 s") != std::string::npos);
}

TEST_CASE("the report says how the run was started and who made the report") {
  ReportInput in = sweep();
  in.manifest.command = "ssim run 'my <exp>.yaml' --only sim";
  in.made_by = "ssim 0.9, ada on login1";
  const std::string html = render_report(in);
  CHECK(html.find("<dt>command</dt><dd>ssim run &#39;my &lt;exp&gt;.yaml&#39; --only sim</dd>") != std::string::npos);
  CHECK(html.find("(ssim 0.9, ada on login1)") != std::string::npos);
  in.manifest.command.clear();  // a manifest of an older ssim
  CHECK(render_report(in).find("<dt>command</dt>") == std::string::npos);
}

TEST_CASE("a running experiment is a snapshot, and bars still running end now") {
  ReportInput in = sweep();
  in.running = true;
  in.manifest.finished = 0;
  in.manifest.entities[3].status = state::Status::Running;
  in.manifest.entities[3].end = 0;
  const std::string html = render_report(in);
  CHECK(html.find("running (a snapshot taken") != std::string::npos);
  CHECK(html.find("sim_1: running, 14 min 58 s") != std::string::npos);  // 102 .. now (1000)
}

TEST_CASE("database samples: INFO fields, and the report's charts") {
  const auto s = ssim::orchestrator::sample_from_info(
      "# Memory\r\nused_memory:1048576\r\nused_memory_peak:2097152\r\n# Clients\r\nconnected_clients:3\r\n"
      "instantaneous_ops_per_sec:250\r\n# Keyspace\r\ndb0:keys=12,expires=0,avg_ttl=0\r\ndb1:keys=3,expires=0\r\n");
  CHECK(s["used_memory"] == 1048576);
  CHECK(s["used_memory_peak"] == 2097152);
  CHECK(s["connected_clients"] == 3);
  CHECK(s["ops_per_sec"] == 250);
  CHECK(s["keys"] == 15);
  ReportInput in = sweep();
  CHECK(render_report(in).find("id=\"database\"") == std::string::npos);  // no samples, no section
  for (int i = 0; i < 3; ++i) {
    auto sample = s;
    sample["time"] = 100.0 + 5 * i;
    sample["shard"] = "orchestrator";
    sample["keys"] = 10 * i;
    in.db_samples.push_back(sample);
  }
  const std::string html = render_report(in);
  CHECK(html.find("id=\"database\"") != std::string::npos);
  CHECK(html.find("used memory: last 1 MiB, peak 1 MiB") != std::string::npos);
  CHECK(html.find("keys: last 20, peak 20") != std::string::npos);
}

TEST_CASE("escaped text is valid UTF-8 with no terminal control, whatever a program printed") {
  using ssim::report::escape;
  CHECK(escape("a<b & \"c\" 'd'") == "a&lt;b &amp; &quot;c&quot; &#39;d&#39;");
  CHECK(escape("caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x99\x82") == "caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x99\x82");  // kept
  CHECK(escape("\x1b[31mred\x1b[0m") == "\xEF\xBF\xBD[31mred\xEF\xBF\xBD[0m");                                // ESC
  CHECK(escape("bad \xFF\xFE byte") == "bad \xEF\xBF\xBD\xEF\xBF\xBD byte");
  CHECK(escape("cut \xE2\x9C") == "cut \xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(escape("overlong \xC0\xAF") == "overlong \xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(escape("surrogate \xED\xA0\x80") == "surrogate \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(escape("c1 \xC2\x9B") == "c1 \xEF\xBF\xBD");  // CSI as one code point
  CHECK(escape("tab\tnew\nline") == "tab\tnew\nline");
  CHECK(escape(std::string("nul\0x", 5)) == "nul\xEF\xBF\xBDx");
}
