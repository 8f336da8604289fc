// Metrics files stay bounded (docs/metrics.md, "How much is kept"): the running entities'
// files are looked at every 5 s, and an entity's once more when it ends after running a
// second or more (a shorter one cannot have written much; skipping it keeps 10^5 short
// members from costing a directory read each).
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
    if (e.status == Status::Running) bound_metrics_of(e);
}

void Engine::bound_metrics_ended(const state::EntityRecord& e) {
  if (state::is_terminal(e.status) && state::seconds_run(e, clock_->now()) >= 1) bound_metrics_of(e);
}

void Engine::bound_metrics_of(const state::EntityRecord& e) {
  const std::uintmax_t limit = metrics_limit();
  for (const auto& file : state::metric_files(e.run_dir)) {
    try {
      if (state::bound_metrics_file(file, limit, e.goal.get()))
        log_->info("{}: {} grew past {} bytes: thinned to every other point", e.name, file, limit);
    } catch (const std::exception& ex) {  // a full disk: the file stays as it was, the run goes on
      log_->warn("{}: could not thin {}: {}", e.name, file, ex.what());
    }
  }
}

}  // namespace ssim::engine
