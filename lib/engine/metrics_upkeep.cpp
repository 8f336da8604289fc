#include <sys/stat.h>
#include <unistd.h>

#include "lib/engine/metrics_upkeep.hpp"
#include "lib/state/metrics_bound.hpp"

#include <functional>

namespace ssim::engine {

using state::Status;

namespace {
std::uintmax_t limit_said_once(spdlog::logger& log, const std::function<void(const std::string&)>& warn) {
  static std::string problem;
  static const std::uintmax_t limit = state::metrics_file_limit(&problem);
  if (!problem.empty()) {  // said once, where the run says things
    log.warn("{}", problem);
    warn(problem);
    problem.clear();
  }
  return limit;
}
}  // namespace

std::uintmax_t MetricsUpkeep::limit(RunContext& run) {
  return limit_said_once(run.log, [&run](const std::string& text) { run.emit(text_event(EventKind::Warning, text)); });
}

void MetricsUpkeep::bound(RunContext& run) {
  limit(run);  // a bad SSIM_METRICS_LIMIT is said when the run starts
  if (!bounds_.due(run.clock.steady())) return;
  for (const auto& e : run.m.entities)
    if (e.status == Status::Running) bound_files(run, e, state::metric_files(e.run_dir));
}

void MetricsUpkeep::stamp(RunContext& run, const std::vector<size_t>& live) {
  if (!stamps_.due(run.clock.steady())) return;
  for (size_t i : live) {
    const auto& e = run.m.entities[i];
    const plan::Step* step = run.step(e.name);
    if (e.status == Status::Running && step && !step->program->res.wrapped_ranks())
      printed_.look(e.name, e.run_dir, run.clock.now());
  }
}

void MetricsUpkeep::ended(RunContext& run, const state::EntityRecord& e) {
  if (!state::is_terminal(e.status)) return;
  // After a second's run, or of several ranks, one listing for its points and every
  // rank's losses; after a shorter run of one rank, rank 0's two files alone are looked
  // for (two accesses), and listed only when there are some.
  const plan::Step* step = run.step(e.name);
  const bool one_rank = step && step->program->res.ntasks <= 1 && step->program->res.nodes <= 1 &&
                        step->program->res.tasks_per_node <= 1 && step->program->res.torchrun == 0;
  const bool long_run = state::seconds_run(e, run.clock.now()) >= 1;
  // What a lone program printed since the last look; looked at only once it was looked at
  // running (a member shorter than a second costs nothing more).
  if (printed_.watching(e.name)) printed_.end(e.name, e.run_dir, run.clock.now());
  state::RankFiles files;
  if (long_run || !one_rank || ::access((e.run_dir + "/metrics.0.lost").c_str(), F_OK) == 0 ||
      ::access((e.run_dir + "/metrics.0.ndjson").c_str(), F_OK) == 0)
    files = state::rank_files(e.run_dir);
  if (long_run) bound_files(run, e, files.points);
  say_lost(run, e.name, files.losses);
  // Several ranks share one stdout: their wrappers stamped each rank's own lines; where
  // they could not (an older ssim-supervise), lines their launcher ran together are lost.
  if (!one_rank)
    if (const int garbled = state::unreadable_metric_lines(e.run_dir, e.name, files.points); garbled > 0)
      if (auto* r = run.m.find(e.name)) {
        const std::string said = std::to_string(garbled) + " metric line" + (garbled == 1 ? "" : "s") +
                                 " on stdout could not be read (not the documented form, or ranks' output run "
                                 "together by their launcher; ssim.metrics or the clients' log_metric lose none)";
        run.log.warn("{}: {}", r->name, said);
        run.emit(text_event(EventKind::Warning, r->name + ": " + said));
        r->reason = said + (r->reason.empty() ? "" : "; " + r->reason);
        run.dirty = true;
      }
  // Nothing for metrics readers (no points, nothing on its stdout): they need not look.
  struct stat out {};
  if (files.points.empty() && ::stat((e.run_dir + "/" + e.name + ".out").c_str(), &out) == 0 && out.st_size == 0)
    if (auto* r = run.m.find(e.name); r && !r->no_metrics) r->no_metrics = true, run.dirty = true;
}

void MetricsUpkeep::say_lost(RunContext& run, const std::string& name, const std::vector<std::string>& lost_files) {
  auto* e = run.m.find(name);
  if (!e || lost_files.empty()) return;
  // A few ranks by name, the rest counted: 5,000 markers are not a note in every row.
  constexpr size_t kNamed = 3;
  const size_t named = std::min(kNamed, lost_files.size());
  const auto losses = state::metric_losses({lost_files.begin(), lost_files.begin() + static_cast<long>(named)});
  std::string said;
  for (const auto& l : losses) said += (said.empty() ? "" : "; ") + l;
  if (lost_files.size() > named) said += "; and " + std::to_string(lost_files.size() - named) + " more ranks";
  run.log.warn("{}: {}: {}", e->name, state::kMetricPointsLost, said);
  run.emit(text_event(EventKind::Warning, e->name + ": " + state::kMetricPointsLost + ": " + said));
  e->reason = std::string(state::kMetricPointsLost) + " (" + said + ")" + (e->reason.empty() ? "" : "; " + e->reason);
  run.dirty = true;
}

void MetricsUpkeep::bound_files(RunContext& run, const state::EntityRecord& e, const std::vector<std::string>& files) {
  const std::uintmax_t most = limit(run);
  for (const auto& file : files) {
    try {
      if (state::bound_metrics_file(file, most, e.goal.get()))
        run.log.info("{}: {} grew past {} bytes: thinned to every other point", e.name, file, most);
    } catch (const std::exception& ex) {  // a full disk: the file stays as it was, the run goes on
      run.log.warn("{}: could not thin {}: {}", e.name, file, ex.what());
    }
  }
}

}  // namespace ssim::engine
