#include "lib/engine/refresh.hpp"

#include "lib/state/setup_failure.hpp"
#include "lib/util/split.hpp"

#include "lib/util/clock.hpp"

namespace ssim::engine {

namespace {
bool names_one_of(const std::string& host, const std::string& hosts) {
  if (host.find(',') != std::string::npos) return false;
  for (const auto& h : split(hosts, ','))
    if (h == host) return true;
  return false;
}
}  // namespace

using state::Status;

bool refresh(state::Manifest& m, launch::Launcher& launcher,
             const std::function<void(const state::EntityRecord&, Status)>& on_change, const std::vector<size_t>* among,
             bool judge) {
  std::vector<launch::JobRef> refs;
  std::vector<state::EntityRecord*> records;
  auto consider = [&](state::EntityRecord& e) {
    if (e.job_id.empty() || state::is_terminal(e.status)) return;
    refs.push_back(job_of(e));
    records.push_back(&e);
  };
  if (among)
    for (size_t i : *among) consider(m.entities[i]);
  else
    for (auto& e : m.entities) consider(e);
  if (refs.empty()) return false;
  const auto statuses = launcher.poll(refs);
  bool changed = false;
  for (size_t i = 0; i < statuses.size(); ++i) {
    auto& r = *records[i];
    const auto& s = statuses[i];
    if (s.judged && !judge) continue;  // the run decides
    const Status before = r.status;
    if (s.pid && s.pid != r.pid) {
      r.pid = s.pid;
      changed = true;
    }
    if (!s.native_id.empty() && s.native_id != r.extra().native_id) {
      r.extra_mut().native_id = s.native_id;
      changed = true;
    }
    // The scheduler's word beats ssim's placement guess; a job's own supervisor naming
    // one of the hosts the scheduler listed (after the scheduler forgot the job) does not.
    if (!s.nodes.empty() && s.nodes != r.nodes && !names_one_of(s.nodes, r.nodes)) {
      r.nodes = s.nodes;
      changed = true;
    }
    if (s.status == before && s.reason == r.reason) continue;
    r.status = s.status;
    r.exit_code = s.exit_code;
    r.signal = s.signal;
    r.reason = s.reason;
    // Status 0 from a step whose setup lines never handed over to the program: it did nothing.
    if (r.status == Status::Completed && r.exit_code == 0 && (r.setup || r.type == state::EntityKind::Batch) &&
        state::setup_never_finished(r.run_dir)) {
      r.status = Status::Failed;
      r.reason = state::kSetupEndedTheStep;
    }
    if (s.start > 0) r.start = s.start;
    if (s.end > 0) r.end = s.end;
    if (state::is_terminal(r.status) && r.end == 0) r.end = now_seconds();  // seen ended now
    changed = true;
    if (on_change && before != r.status) on_change(r, before);
  }
  return changed;
}

std::string describe(const state::EntityRecord& r) {
  std::string out = to_string(r.status);
  if (!r.reason.empty() && r.status != Status::Completed) out += ": " + r.reason;
  return out;
}

}  // namespace ssim::engine
