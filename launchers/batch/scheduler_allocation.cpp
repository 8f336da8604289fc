#include "launchers/batch/scheduler_allocation.hpp"

#include <cstdlib>
#include <optional>

#include "lib/util/atomic_file.hpp"
#include "lib/util/errors.hpp"

namespace ssim::launchers {

using namespace std::chrono_literals;

namespace {
// Nodes node1..nodeN standing for an allocation not requested yet (dry runs, the fit check).
Allocation placeholder(const std::string& id, int nodes) {
  Allocation a{id, {}, {}};
  for (int i = 1; i <= nodes; ++i) a.hosts.push_back("node" + std::to_string(i));
  return a;
}

[[noreturn]] void does_not_fit(const PlacementError& e) {
  throw UsageError(std::string("the experiment does not fit its allocation: ") + e.what());
}
}  // namespace

void SchedulerAllocation::place_on(const plan::Plan& plan, Allocation allocation) {
  placement_ = place(plan, allocation);
  current_ = std::move(allocation);
}

void SchedulerAllocation::prepare(const plan::Plan& plan, const launch::PrepareOptions& options) {
  const std::string me = scheduler_.name();
  std::optional<Allocation> inside =
      scheduler_.current_allocation([](const char* n) { return std::getenv(n); }, read_file);
  // Entities with batch: (and a database with batch:) are jobs of their own; an
  // allocation is needed only for the rest.
  bool needs_allocation = plan.database && !plan.database->batch;
  for (const auto& s : plan.steps) needs_allocation = needs_allocation || !s.program->batch;
  auto fit = [&](Allocation a) {
    try {
      place_on(plan, std::move(a));
    } catch (const PlacementError& e) {
      does_not_fit(e);
    }
  };
  if (!needs_allocation && !inside) return fit(Allocation{});
  if (inside) {
    if (const auto detail = scheduler_.allocation_detail_command(*inside))
      scheduler_.refine_allocation(*inside, runner_.run(*detail, 20s));
    return fit(*inside);
  }
  if (!plan.allocation) {
    if (options.placeholder_nodes > 0) return fit(placeholder("<job>", options.placeholder_nodes));
    throw UsageError("launcher " + me + " needs an allocation: " + scheduler_.allocation_hint());
  }
  // Refused before the queue is asked for its nodes' size, which would be asked for nothing.
  const auto* requests = scheduler_.allocation_requests();
  if (!requests)
    throw UsageError("allocation: is not available with launcher " + me + ": " + scheduler_.allocation_hint());
  const int nodes = plan.allocation->nodes.value_or(
      nodes_needed(plan, cpus_per_node(scheduler_, runner_, plan, *plan.allocation, log_)));
  fit(placeholder("<allocation>", nodes));  // fits before anything is requested
  if (!options.request) return;
  Allocation got = request(*requests, requests->allocation_command(plan.name, *plan.allocation, nodes));
  const std::string id = got.job_id;
  try {
    place_on(plan, std::move(got));
  } catch (const PlacementError& e) {
    release(id);
    does_not_fit(e);
  }
}

// Requests the allocation and reads its hosts; what was granted but cannot be read is
// released before the error.
Allocation SchedulerAllocation::request(const AllocationRequests& requests, const std::vector<std::string>& command) {
  const auto r = runner_.run(command, 600s);
  const std::string id = requests.allocation_id_from_output(r);
  if (id.empty())
    throw EnvironmentError(
        command[0] + " refused the allocation: " + (r.err.empty() ? "exit " + std::to_string(r.exit_code) : r.err));
  owned_ = true;
  const auto q = run_with_retries(runner_, requests.allocation_hosts_command(id), 20s, log_);
  Allocation got{id, {}, {}};
  try {
    got = requests.parse_allocation(id, q);
  } catch (const std::exception&) {
  }
  if (got.hosts.empty()) {
    release(id);
    throw EnvironmentError("cannot read the nodes of allocation " + id);
  }
  return got;
}

void SchedulerAllocation::release(const std::string& id) {
  if (!id.empty()) run_with_retries(runner_, scheduler_.cancel_command({id}), 20s, log_, 2);
}

// The allocation is one of the scheduler's jobs: its own status query says whether it
// still runs. Asked again each time until it says it ended (a failed query says nothing).
std::optional<std::map<std::string, JobStatus>> SchedulerAllocation::ask_about(const std::string& id) const {
  const std::vector<std::string> ids = {id};
  for (int attempt = 0; attempt < 2; ++attempt) {
    const CommandResult r = runner_.run(scheduler_.status_command(ids), 20s);
    if (auto parsed = scheduler_.parse_status_output(r, ids)) return parsed;
    // PBS with job history off refuses `qstat -x`: asked again the way it answers.
    if (!scheduler_.switch_status_source(r)) break;
  }
  return std::nullopt;
}

std::optional<launch::JobAllocation::Ended> SchedulerAllocation::ended() const {
  if (ended_ || current_.job_id.empty()) return ended_;
  const auto parsed = ask_about(current_.job_id);
  if (!parsed) return std::nullopt;
  const auto it = parsed->find(current_.job_id);
  if (it == parsed->end() || !state::is_terminal(it->second.status)) return std::nullopt;
  const auto& s = it->second;
  std::string said = s.reason.empty() ? std::string(state::to_string(s.status)) : s.reason;
  ended_ = Ended{"the allocation " + current_.job_id + " ended: " + said, s.end};
  if (log_) log_("allocation " + current_.job_id + " ended under the run: " + said);
  return ended_;
}

std::optional<launch::JobAllocation::Ended> SchedulerAllocation::ended_job(const std::string& id) const {
  if (id.empty()) return std::nullopt;
  const auto parsed = ask_about(id);
  if (!parsed) return std::nullopt;  // not asked: nothing concluded
  const auto it = parsed->find(id);
  if (it == parsed->end()) return std::nullopt;
  // A job the manifest recorded that the scheduler says it does not know has ended (its
  // history off); one it merely did not list says nothing.
  if (it->second.forgotten) return Ended{"job " + id + " ended (" + scheduler_.name() + " no longer knows it)", 0};
  if (!state::is_terminal(it->second.status)) return std::nullopt;
  const auto& s = it->second;
  return Ended{"job " + id + " ended: " + (s.reason.empty() ? std::string(state::to_string(s.status)) : s.reason),
               s.end};
}

std::string SchedulerAllocation::placed_nodes(const std::string& name) const {
  if (const auto it = placement_.steps.find(name); it != placement_.steps.end()) return join_hosts(it->second.nodes);
  // A database shard: ssim placed it, so where it runs is known before the scheduler
  // says (a short run may end before its answer comes).
  for (size_t s = 0; s < placement_.database.size(); ++s)
    if (name == "orchestrator_" + std::to_string(s) || (s == 0 && name == "orchestrator"))
      return join_hosts(placement_.database[s].nodes);
  return "";
}

int cpus_per_node(Scheduler& scheduler, CommandRunner& runner, const plan::Plan& plan,
                  const spec::BatchSettings& settings, const std::function<void(const std::string&)>& log) {
  bool packed = false;
  for (const auto& s : plan.steps) packed = packed || is_packed(s);
  const auto query = packed ? scheduler.cpus_per_node_command(settings) : std::nullopt;
  if (!query) return 0;
  const int cpus = scheduler.parse_cpus_per_node(runner.run(*query, 20s));
  if (cpus == 0 && log) log((*query)[0] + " did not say how many CPUs a node has; packed entities get one node");
  return cpus;
}

}  // namespace ssim::launchers
