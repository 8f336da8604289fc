#include "launchers/batch/batch_launcher.hpp"

#include <unistd.h>

#include <thread>

#include "launchers/batch/merge_status.hpp"
#include "launchers/job_files.hpp"
#include "lib/state/rank_ends.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/experiment_dir.hpp"
#include "lib/util/file_tail.hpp"

namespace ssim::launchers {
using namespace ssim::launch;

using namespace std::chrono_literals;
using state::Status;
using Kind = state::JobId::Kind;

std::string recorded_step(const std::string& run_dir) {
  auto text = read_run_file(run_dir + "/.ssim-step");
  if (!text) return "";
  while (!text->empty() && (text->back() == '\n' || text->back() == ' ')) text->pop_back();
  return *text;
}

BatchLauncher::BatchLauncher(std::unique_ptr<Scheduler> scheduler, std::unique_ptr<CommandRunner> runner,
                             std::string supervisor)
    : scheduler_(std::move(scheduler)), runner_(std::move(runner)), supervisor_(supervisor), local_(supervisor) {
  local_.set_node_variable(scheduler_->node_variable());
}

void BatchLauncher::set_allocation(const plan::Plan& plan, Allocation allocation) {
  allocation_.place_on(plan, std::move(allocation));
  commands_.index(plan);
  agents_.place_in(ssim_dir(plan.path));
}

void BatchLauncher::prepare(const plan::Plan& plan, const PrepareOptions& options) {
  allocation_.prepare(plan, options);
  commands_.index(plan);
  agents_.place_in(ssim_dir(plan.path));
}

void BatchLauncher::set_clock(const ssim::Clock& clock) {
  queries_.set_clock(clock);
  jobs_.set_clock(clock);
  out_of_use_.set_clock(clock);
}

void BatchLauncher::set_queries_in_background(bool background) {
  queries_.set_in_background(background);
  out_of_use_.set_in_background(background);
}

// --- command lines ---------------------------------------------------------------

std::vector<std::string> BatchLauncher::command(const plan::Step& step) const {
  StepInfo i{step.program->res, {}, step.program->setup};
  if (!step.program->batch) {  // a step of the allocation
    const auto* known = commands_.info(step.name);
    i.placement = known ? known->placement : Placement{{"<node>"}, false};
    if (is_packed(step) && agents_.runs(step.program->res, 1))
      return task_program(step, supervisor_);                                  // its node's agent runs it
    if (is_packed(step)) i.placement = Placement{{"<node>"}, false, true, 0};  // its nodes come when it starts
  }
  return commands_.command(step, i);
}

std::vector<std::string> BatchLauncher::command_on(const plan::Step& step, const Grant& grant) const {
  if (agents_.runs(step.program->res, grant.nodes.size()))
    return task_program(step, supervisor_);  // its node's agent starts it
  StepInfo i{step.program->res, placement_of(grant), step.program->setup};
  if (grant.nodes.size() > 1) i.res.tasks_per_node = grant.tasks_per_node();
  return commands_.command(step, i);
}

std::vector<PoolNode> BatchLauncher::pool(const plan::Plan&) const { return allocation_.placement().pool; }

std::vector<std::string> BatchLauncher::database_command(int shard, const std::string& run_dir,
                                                         const std::vector<std::string>& inner) const {
  return commands_.database_command(shard, run_dir, inner);
}

// --- nodes -------------------------------------------------------------------------

std::map<std::string, std::string> BatchLauncher::lost_nodes() const {
  std::map<std::string, std::string> out = out_of_use_.nodes();
  for (auto& [node, why] : agents_.lost()) out[node] = why;  // a lost agent says more than drained
  return out;
}

// A whole-node step's own nodes (not a pinned one's: those may already be shared).
std::vector<PoolNode> BatchLauncher::nodes_freed_by(const std::string& name) const {
  std::vector<PoolNode> out;
  const auto& placement = allocation_.placement();
  const auto it = placement.steps.find(name);
  if (it == placement.steps.end() || it->second.shared) return out;
  for (const auto& node : it->second.nodes) {
    const auto slots = allocation_.current().slots.find(node);
    out.push_back({node, slots == allocation_.current().slots.end() ? 0 : slots->second, std::nullopt});
  }
  return out;
}

// --- start, poll, cancel ---------------------------------------------------------

std::vector<JobRef> BatchLauncher::start(std::span<const LaunchRequest> requests) {
  std::vector<LaunchRequest> local, agent;
  std::vector<size_t> local_index, agent_index;
  std::vector<JobRef> refs(requests.size());
  for (size_t k = 0; k < requests.size(); ++k) {
    LaunchRequest r = requests[k];
    if (r.earlier_attempts) {  // a first attempt has nothing to forget (five unlinks a member)
      ::unlink((r.run_dir + "/.ssim-step").c_str());
      state::forget_last_attempt(r.run_dir);  // rank ends, step ends, rank 0's address, a failed setup line
    }
    add_root_exports(r.env);
    if (r.batch) {
      const StepInfo step = commands_.of(r.name);  // a step's, or a database shard's
      refs[k] = scripts_.submit(r, step.res, step.setup);
      continue;
    }
    // Looked up, not copied: a member through an agent costs no copy of its step's setup.
    if (const StepInfo* known = commands_.info(r.name); known && agents_.runs(known->res, r.nodes.size())) {
      agent.push_back(std::move(r));
      agent_index.push_back(k);
      continue;
    }
    // The launch command's own environment (Slurm's view of the step for mpirun).
    const auto extra = commands_.launch_env(r.name, r.run_dir);
    r.env.insert(r.env.end(), extra.begin(), extra.end());
    // Its tasks (a colocated database among them) name their node as the scheduler does.
    if (const auto var = scheduler_->node_variable(); !var.empty()) r.env.emplace_back("SSIM_NODE_VARIABLE", var);
    local.push_back(std::move(r));
    local_index.push_back(k);
  }
  const auto started = local_.start(local);
  for (size_t k = 0; k < started.size(); ++k) refs[local_index[k]] = started[k];
  if (!agent.empty()) {
    const auto handed = agents_.start(std::move(agent));
    for (size_t k = 0; k < handed.size(); ++k) refs[agent_index[k]] = handed[k];
  }
  return refs;
}

std::vector<JobStatus> BatchLauncher::poll(std::span<const JobRef> jobs) {
  std::vector<JobRef> steps, handed;
  for (const auto& j : jobs)
    if (j.id.is(Kind::Agent))
      handed.push_back(j);  // the agent's files say it all
    else if (!j.id.is(Kind::Job))
      steps.push_back(j);
  // The supervisors' view first: a step that ends while the query runs must still be
  // found with its id, and the id file is written before its launch command can end.
  auto step_status = local_.poll(steps);
  agents_.beat();
  if (out_of_use_.check(allocation_.placement().pool)) agents_.revive(out_of_use_.nodes());

  std::vector<std::string> step_ids, ids;  // one query for every job and step
  for (const auto& j : jobs) {
    if (j.id.is(Kind::Job)) ids.push_back(j.id.job);
    if (j.id.is(Kind::Job) || j.id.is(Kind::Agent)) continue;
    step_ids.push_back(recorded_step(j.run_dir));
    if (!step_ids.back().empty()) ids.push_back(step_ids.back());
  }
  const std::map<std::string, JobStatus> said = queries_.answer(ids);
  step_status = merge_steps(steps, std::move(step_status), step_ids, said);
  const auto by_agents = agents_.poll(handed);
  std::vector<std::string> never;
  std::vector<JobStatus> out;
  size_t next_step = 0, next_handed = 0;
  for (const auto& j : jobs) {
    if (j.id.is(Kind::Agent)) {
      out.push_back(by_agents[next_handed++]);
    } else if (j.id.is(Kind::Job)) {
      const auto it = said.find(j.id.job);
      const auto scheduler = it == said.end() ? std::nullopt : std::optional(it->second);
      out.push_back(jobs_.status(j.id.job, j.run_dir, scheduler, never));
    } else {
      out.push_back(step_status[next_step++]);
    }
  }
  if (!never.empty()) run_with_retries(*runner_, scheduler_->cancel_command(never), 20s, log_, 2);
  return out;
}

std::vector<JobStatus> BatchLauncher::merge_steps(std::span<const JobRef> steps, std::vector<JobStatus> local,
                                                  const std::vector<std::string>& ids,
                                                  const std::map<std::string, JobStatus>& said) const {
  const double now = now_seconds();
  for (size_t k = 0; k < steps.size(); ++k) {
    const auto it = ids[k].empty() ? said.end() : said.find(ids[k]);
    const auto scheduler = it == said.end() ? std::nullopt : std::optional(it->second);
    local[k].native_id = ids[k];
    local[k] = merge_step(local[k], scheduler, commands_.witness(steps[k], local[k], scheduler), now);
    local[k].native_id = ids[k];
  }
  return local;
}

void BatchLauncher::cancel(std::span<const JobRef> jobs, bool force) {
  std::vector<std::string> ids;
  std::vector<JobRef> steps, handed;
  for (const auto& j : jobs) {
    if (j.id.is(Kind::Agent)) {
      handed.push_back(j);
      continue;
    }
    const std::string id = j.id.is(Kind::Job) ? j.id.job : recorded_step(j.run_dir);
    if (!id.empty()) ids.push_back(id);
    // The marker first: a step that ends because of the scancel below ended after it
    // (cancelled), one that had ended before keeps its outcome. The earliest one stays.
    mark_cancelled(j.run_dir);
    if (!j.id.is(Kind::Job)) steps.push_back(j);
  }
  if (!ids.empty()) {  // one call for every job and step
    const auto argv = scheduler_->cancel_command(ids);
    auto r = runner_->run(argv, 20s);
    if (!scheduler_->cancel_output_ok(r)) {
      std::this_thread::sleep_for(200ms);  // scheduler backoff, once
      r = runner_->run(argv, 20s);
      if (!scheduler_->cancel_output_ok(r) && log_) log_(argv[0] + " failed: " + r.err.substr(0, 200));
    }
  }
  local_.cancel(steps, force);  // and the launch commands on this host
  agents_.cancel(handed, force, log_);
}

}  // namespace ssim::launchers
