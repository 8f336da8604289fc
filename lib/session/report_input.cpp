#include "lib/session/report_input.hpp"
#include "lib/session/secrets.hpp"

#include "lib/orchestrator/inference_files.hpp"
#include "lib/orchestrator/shard_samples.hpp"
#include "lib/state/metrics.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/user_file.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/proc_stat.hpp"
#include "lib/state/entity_error.hpp"
#include "ssim_version.hpp"

namespace ssim::session {

report::ReportInput report_input(const CurrentState& s) {
  report::ReportInput in;
  in.manifest = s.manifest;
  in.now = now_seconds();
  in.running = s.runner.has_value() && !s.all_ended;
  int hidden = 0;  // the report is a file to share: secrets in the YAML are masked
  in.experiment_file = shown_yaml(read_file(s.manifest.file).value_or(""), hidden);
  for (const auto& e : s.manifest.entities)  // the first 200 failures, as the report shows them
    if (e.status == state::Status::Failed && in.stderr_tails.size() < 200)
      in.stderr_tails[e.name] = state::entity_last_error(e.run_dir, e.name, 10);  // not mpirun's banner
  in.db_samples = orchestrator::read_samples(s.manifest.path);
  for (const auto& e : s.manifest.entities)
    if (e.type != state::EntityKind::Database)
      if (const auto points = state::read_metrics(e); !points.empty()) {
        auto& kept = in.metrics[e.name];
        kept.goal = e.goal ? state::goal_outcome(e, points) : std::nullopt;
        kept.curves = state::curve_series(points, e.start, 200);
        for (const auto& [metric, point] : state::latest_metrics(points)) kept.latest[metric] = point.value;
      }
  for (const auto& e : s.manifest.entities)
    if (e.type == state::EntityKind::Database)
      if (auto service = orchestrator::inference_status(e.name, e.run_dir, e.status == state::Status::Running))
        in.inference.push_back(std::move(*service));
  in.made_by = std::string("ssim ") + SSIM_VERSION + ", " + user_name() + " on " + host_name();
  return in;
}

std::string experiment_report(const std::string& path) {
  return report::render_report(report_input(current_state(path)));
}

WrittenReport write_report(const std::string& path, const std::string& file) {
  const std::string html = experiment_report(path);
  WrittenReport out{file.empty() ? path + "/report.html" : file, html.size()};
  write_user_file(out.file, html);
  return out;
}

}  // namespace ssim::session
