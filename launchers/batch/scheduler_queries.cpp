#include "launchers/batch/scheduler_queries.hpp"

namespace ssim::launchers {
using namespace ssim::launch;
using namespace std::chrono_literals;

std::map<std::string, JobStatus> SchedulerQueries::answer(const std::vector<std::string>& ids) {
  if (ids.empty()) return {};
  bool failed = false;  // an answer that was no answer came in now: the supervisors' view stands
  if (query_.valid()) {
    if (query_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return last_said_;
    failed = !absorb(query_ids_, query_.get());
  }
  const auto now = clock_->steady();
  bool fresh = now >= next_query_ || ask_again_;
  for (const auto& id : ids) fresh = fresh || !last_said_.count(id);
  if (!fresh || (failed && !ask_again_)) return failed ? std::map<std::string, JobStatus>{} : last_said_;
  ++queries_;
  query_ids_ = ids;
  if (in_background_) {
    query_ = std::async(std::launch::async,
                        [runner = &runner_, argv = scheduler_.status_command(ids)] { return runner->run(argv, 20s); });
    return failed ? std::map<std::string, JobStatus>{} : last_said_;
  }
  for (int attempt = 0; attempt < 2; ++attempt) {  // a switch of sources is asked again at once
    if (absorb(ids, runner_.run(scheduler_.status_command(ids), 20s))) return last_said_;
    if (!ask_again_) break;
  }
  return {};
}

bool SchedulerQueries::absorb(const std::vector<std::string>& ids, const CommandResult& r) {
  ask_again_ = false;
  auto parsed = scheduler_.parse_status_output(r, ids);
  if (!parsed) {
    if (scheduler_.switch_status_source(r)) {
      ask_again_ = true;
    } else if (log_) {
      log_(scheduler_.status_command(ids)[0] + " failed (" +
           (r.timed_out ? "timed out" : "exit " + std::to_string(r.exit_code)) + "): " + r.err.substr(0, 200));
    }
    return false;
  }
  std::map<std::string, JobStatus> said = std::move(*parsed);
  bool changed = said.size() != last_said_.size();
  for (const auto& [id, st] : said) {
    const auto before = last_said_.find(id);
    changed = changed || before == last_said_.end() || before->second.status != st.status;
  }
  interval_ = changed ? kMinInterval : std::min<std::chrono::milliseconds>(interval_ * 3 / 2, kMaxInterval);
  next_query_ = clock_->steady() + interval_;
  last_said_ = std::move(said);
  return true;
}

}  // namespace ssim::launchers
