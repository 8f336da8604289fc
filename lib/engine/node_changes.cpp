#include "lib/engine/node_changes.hpp"
#include "lib/state/agent_files.hpp"
#include "lib/util/split.hpp"

namespace ssim::engine {

using state::Status;

NodeSources node_sources_of(const launch::Launcher& launcher) {
  NodeSources s;
  s.freed_by = [&launcher](const std::string& name) { return launcher.nodes_freed_by(name); };
  if (const auto* scheduling = launcher.scheduling()) s.lost = [scheduling] { return scheduling->lost_nodes(); };
  if (const auto* allocation = launcher.allocation()) s.allocation_ended = [allocation] { return allocation->ended(); };
  return s;
}

bool NodeChanges::take_freed(RunContext& run, const std::vector<std::string>& ended) {
  if (schedule_.pool().empty()) return false;  // nothing is packed: no pool to grow
  bool grew = false;
  for (const auto& name : ended) {
    const auto* r = run.m.find(name);
    // Ended for good: a failure to be retried went back to new (schedule_retries) and
    // keeps its nodes for the next attempt.
    if (!r || !state::is_terminal(r->status) || freed_by_.count(name)) continue;
    const auto freed = sources_.freed_by(name);
    if (freed.empty()) continue;  // a packed member: nothing to give back, nothing to remember
    std::vector<std::string> joined;
    for (const auto& node : freed)
      if (schedule_.pool().add(node)) joined.push_back(node.name);
    freed_by_.insert(name);
    if (joined.empty()) continue;
    run.log.info("{} ended: its nodes {} join the pool, packed members run there too", name, join(joined, ","));
    grew = true;
  }
  return grew;
}

// A node found dead gets nothing more; what no longer fits anywhere fails, and says why.
// A node the launcher no longer reports (a drained node resumed) is placed on again.
bool NodeChanges::retire_lost(RunContext& run) {
  bool retired = false, restored = false;
  if (!sources_.lost) return false;  // the local machine is never out of use
  const auto lost = sources_.lost();
  for (const auto& [node, why] : lost)
    if (schedule_.pool().retire(node)) {
      // why: "lost (its ssim agent ...)", "drained by slurm (bad dimm)"
      run.log.warn("node {} is {}: nothing more is placed there", node, why);
      run.emit(text_event(EventKind::Warning, "node " + node + " is " + why + ": nothing more is placed there"));
      retired_.insert(node);
      retired = true;
    }
  for (auto it = retired_.begin(); it != retired_.end();) {
    if (lost.count(*it) || !schedule_.pool().restore(*it)) {
      ++it;
      continue;
    }
    run.log.info("node {} is back in service: members are placed there again", *it);
    run.emit(text_event(EventKind::Info, "node " + *it + " is back in service: members are placed there again"));
    it = retired_.erase(it);
    restored = true;
  }
  if (!retired) return restored;
  // Nodes go all at once when the allocation itself ends: say that, not "lost". The
  // scheduler may say it a moment after its nodes went (sacct, which reads slurmdbd,
  // still said RUNNING a tenth of a second after a scancel on a loaded machine): when
  // every node went, it is asked again for a few seconds, nothing being able to run.
  if (sources_.allocation_ended) {
    auto ended = sources_.allocation_ended();
    const auto give_up = run.clock.steady() + std::chrono::seconds(5);
    while (!ended && schedule_.pool().all_retired() && run.clock.steady() < give_up) {
      run.clock.sleep(std::chrono::milliseconds(250));
      ended = sources_.allocation_ended();
    }
    if (ended) {
      end_with_allocation(run, *ended);
      return true;
    }
  }
  for (auto& r : run.m.entities) {
    const plan::Resources* ask = schedule_.ask(r.name);
    if (r.status != Status::New || !ask) continue;
    const std::string why = schedule_.pool().never_fits(*ask);
    if (why.empty()) continue;
    r.status = Status::Failed;
    r.reason = "cannot run: " + why;
    r.end = run.clock.now();
    run.emit(entity_event(r.name, to_string(r.type), r.status, std::nullopt, r.reason));
    run.log.error("{} {}", r.name, r.reason);
  }
  return true;
}

// The allocation the run was in ended under it (scancel of the allocation, its time
// limit): nothing more runs. What had not ended is cancelled with the scheduler's words,
// and so is what its end killed: ended by a signal (or with no exit status, its node's
// agent gone) since it ended, or, where the scheduler gives no time (sacct as ssim asks
// it), in the last kAllocationEndSeen seconds: how long a node's loss may take to be
// seen. A node whose agent was killed with the allocation, and none of whose keepers
// outlived its job to say so, is lost only once the agent has been silent for
// kAgentSilenceSeconds, then seen at a poll; with a window of that length alone, members
// killed at the very moment of the end fell just outside it, and stayed "failed: killed
// by SIGTERM" (test_slurm's outside scancel, now and then under load). A failure of
// its own, with an exit code, keeps its reason.
void NodeChanges::end_with_allocation(RunContext& run, const launch::JobAllocation::Ended& ended) {
  constexpr double kAllocationEndSeen = state::kAgentSilenceSeconds + 10;
  const double now = run.clock.now();
  const double since = ended.at > 0 ? ended.at - 1 : now - kAllocationEndSeen;
  for (auto& r : run.m.entities) {
    if (is_outer_batch(r)) continue;
    const bool killed_by_its_end = r.status == Status::Failed && r.end >= since && !r.exit_code.value_or(0);
    if (state::is_terminal(r.status) && !killed_by_its_end) continue;
    r.status = Status::Cancelled;
    r.reason = r.job_id.empty() ? "not started: " + ended.reason : ended.reason;
    if (r.end == 0) r.end = now;
    run.emit(entity_event(r.name, to_string(r.type), r.status, r.exit_code, r.reason));
  }
  run.log.warn("{}: every entity not ended is cancelled", ended.reason);
  run.emit(text_event(EventKind::Warning, ended.reason + ": nothing more runs in it"));
}

void NodeChanges::release_room(const state::Manifest& m) {
  for (const auto& name : schedule_.pool().holders()) {
    const auto* r = m.find(name);
    if (!r || state::is_terminal(r->status) || r->status == Status::New) schedule_.pool().release(name);
  }
}

}  // namespace ssim::engine
