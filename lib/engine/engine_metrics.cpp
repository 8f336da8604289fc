// Metrics files stay bounded (docs/metrics.md, "How much is kept"): the running entities'
// files are looked at every 5 s, and an entity's once more when it ends after running a
// second or more (a shorter one cannot have written much; skipping it keeps 10^5 short
// members from costing a directory read each). Points a writer could not write (a full
// disk) are said when the entity ends: in its note, ssim.log and the run's output.
#include <sys/stat.h>
#include <unistd.h>

#include "lib/engine/engine.hpp"
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

std::uintmax_t Engine::metrics_limit() {
  return limit_said_once(*log_, [this](const std::string& text) { emit(text_event(EventKind::Warning, text)); });
}

void Engine::bound_metrics() {
  metrics_limit();  // a bad SSIM_METRICS_LIMIT is said when the run starts
  const auto now = clock_->steady();
  if (now < next_metrics_bound_) return;
  next_metrics_bound_ = now + std::chrono::seconds(5);
  for (const auto& e : m_.entities)
    if (e.status == Status::Running) bound_metrics_of(e, state::metric_files(e.run_dir));
}

void Engine::stamp_printed_metrics() {
  const auto now = clock_->steady();
  if (now < next_printed_look_) return;
  next_printed_look_ = now + std::chrono::seconds(1);
  for (size_t i : started_) {
    const auto& e = m_.entities[i];
    const auto step = steps_.find(e.name);
    if (e.status == Status::Running && step != steps_.end() && !step->second->res.wrapped_ranks())
      printed_.look(e.name, e.run_dir, clock_->now());
  }
}

void Engine::bound_metrics_ended(const state::EntityRecord& e) {
  if (!state::is_terminal(e.status)) return;
  // After a second's run, or of several ranks, one listing for its points and every
  // rank's losses; after a shorter run of one rank, rank 0's two files alone are looked
  // for (two accesses), and listed only when there are some.
  const auto step = steps_.find(e.name);
  const bool one_rank = step != steps_.end() && step->second->res.ntasks <= 1 && step->second->res.nodes <= 1 &&
                        step->second->res.tasks_per_node <= 1 && step->second->res.torchrun == 0;
  const bool long_run = state::seconds_run(e, clock_->now()) >= 1;
  // What a lone program printed since the last look; looked at only once it was looked at
  // running (a member shorter than a second costs nothing more).
  if (printed_.watching(e.name)) printed_.end(e.name, e.run_dir, clock_->now());
  state::RankFiles files;
  if (long_run || !one_rank || ::access((e.run_dir + "/metrics.0.lost").c_str(), F_OK) == 0 ||
      ::access((e.run_dir + "/metrics.0.ndjson").c_str(), F_OK) == 0)
    files = state::rank_files(e.run_dir);
  if (long_run) bound_metrics_of(e, files.points);
  say_lost_metrics(e.name, files.losses);
  // Several ranks share one stdout: their wrappers stamped each rank's own lines; where
  // they could not (an older ssim-supervise), lines their launcher ran together are lost.
  if (!one_rank)
    if (const int garbled = state::unreadable_metric_lines(e.run_dir, e.name, files.points); garbled > 0)
      if (auto* r = m_.find(e.name)) {
        const std::string said = std::to_string(garbled) + " metric line" + (garbled == 1 ? "" : "s") +
                                 " on stdout could not be read (not the documented form, or ranks' output run "
                                 "together by their launcher; ssim.metrics or the clients' log_metric lose none)";
        log_->warn("{}: {}", r->name, said);
        emit(text_event(EventKind::Warning, r->name + ": " + said));
        r->reason = said + (r->reason.empty() ? "" : "; " + r->reason);
        dirty_ = true;
      }
  // Nothing for metrics readers (no points, nothing on its stdout): they need not look.
  struct stat out {};
  if (files.points.empty() && ::stat((e.run_dir + "/" + e.name + ".out").c_str(), &out) == 0 && out.st_size == 0)
    if (auto* r = m_.find(e.name); r && !r->no_metrics) r->no_metrics = true, dirty_ = true;
}

void Engine::say_lost_metrics(const std::string& name, const std::vector<std::string>& lost_files) {
  auto* e = m_.find(name);
  if (!e || lost_files.empty()) return;
  // A few ranks by name, the rest counted: 5,000 markers are not a note in every row.
  constexpr size_t kNamed = 3;
  const size_t named = std::min(kNamed, lost_files.size());
  const auto losses = state::metric_losses({lost_files.begin(), lost_files.begin() + static_cast<long>(named)});
  std::string said;
  for (const auto& l : losses) said += (said.empty() ? "" : "; ") + l;
  if (lost_files.size() > named) said += "; and " + std::to_string(lost_files.size() - named) + " more ranks";
  log_->warn("{}: {}: {}", e->name, state::kMetricPointsLost, said);
  emit(text_event(EventKind::Warning, e->name + ": " + state::kMetricPointsLost + ": " + said));
  e->reason = std::string(state::kMetricPointsLost) + " (" + said + ")" + (e->reason.empty() ? "" : "; " + e->reason);
  dirty_ = true;
}

void Engine::bound_metrics_of(const state::EntityRecord& e, const std::vector<std::string>& files) {
  const std::uintmax_t limit = metrics_limit();
  for (const auto& file : files) {
    try {
      if (state::bound_metrics_file(file, limit, e.goal.get()))
        log_->info("{}: {} grew past {} bytes: thinned to every other point", e.name, file, limit);
    } catch (const std::exception& ex) {  // a full disk: the file stays as it was, the run goes on
      log_->warn("{}: could not thin {}: {}", e.name, file, ex.what());
    }
  }
}

}  // namespace ssim::engine
