#include "launchers/batch/batch_launcher.hpp"
#include "lib/util/file_tail.hpp"
#include "lib/util/experiment_dir.hpp"

#include "lib/state/rank_ends.hpp"
#include "lib/state/status_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <nlohmann/json.hpp>

#include "launchers/batch/merge_status.hpp"
#include "launchers/job_files.hpp"
#include "launchers/ranks/rank_wrapper.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/errors.hpp"

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

namespace {
std::string describe_end(const JobStatus& s) {
  if (!s.reason.empty()) return s.reason;
  if (s.exit_code) return "exit code " + std::to_string(*s.exit_code);
  return to_string(s.status);
}
}  // namespace

BatchLauncher::BatchLauncher(std::unique_ptr<Scheduler> scheduler, std::unique_ptr<CommandRunner> runner,
                             std::string supervisor)
    : scheduler_(std::move(scheduler)), runner_(std::move(runner)), supervisor_(supervisor), local_(supervisor) {
  local_.set_node_variable(scheduler_->node_variable());
  // Once, not per member: whether this scheduler has agents, and SSIM_AGENTS=0 (a step each).
  agents_possible_ = scheduler_->agent_command("", {"node"}, {}).has_value() && agents_allowed();
}

const BatchLauncher::StepInfo* BatchLauncher::info(const std::string& name) const {
  const auto it = steps_.find(name);
  return it == steps_.end() ? nullptr : &it->second;
}

void BatchLauncher::set_allocation(const plan::Plan& plan, Allocation allocation) {
  allocation_.place_on(plan, std::move(allocation));
  index_steps(plan);
}

void BatchLauncher::prepare(const plan::Plan& plan, const PrepareOptions& options) {
  allocation_.prepare(plan, options);
  index_steps(plan);
}

// What each step needs when it starts: its resources, its place, its setup lines.
void BatchLauncher::index_steps(const plan::Plan& plan) {
  const PlacementPlan& placed = allocation_.placement();
  ssim_dir_ = ssim_dir(plan.path);
  steps_.clear();
  for (const auto& s : plan.steps) {
    StepInfo i{s.res, {}, s.setup};
    if (const auto p = placed.steps.find(s.name); p != placed.steps.end()) i.placement = p->second;
    steps_[s.name] = i;
  }
  setup_ = plan.setup;
  if (plan.database) interface_ = plan.database->interface;
  if (plan.database) database_ = StepInfo{plan.database->res, {}, plan.setup};
}

// --- command lines ---------------------------------------------------------------

RankLauncher BatchLauncher::launcher_for(const plan::Resources& res, const Placement& placement) const {
  const RankLauncher fallback = scheduler_->default_rank_launcher(res);
  const RankLauncher l = rank_launcher_for(res.mpi, fallback);
  // Alone in a job of its own, a single task needs no launcher to reach its host.
  const bool plain_ok = res.mpi == plan::MpiKind::Auto || res.mpi == plan::MpiKind::None;
  if (placement.nodes.empty() && res.ntasks == 1 && plain_ok && l != RankLauncher::Srun) return RankLauncher::None;
  return l;
}

std::optional<StepWitness> BatchLauncher::step_witness(const JobRef& job, const JobStatus& launch,
                                                       const std::optional<JobStatus>& scheduler) const {
  // Asked only when it matters: the launch command exited 0 through the recording
  // wrapper, or the scheduler says cancelled what ssim did not stop (a task's SIGKILL).
  const bool cancelled_by_other =
      scheduler && scheduler->status == Status::Cancelled && launch.status != Status::Cancelled;
  if ((launch.status != Status::Completed && !cancelled_by_other) || !scheduler_->step_id_recipe()) return std::nullopt;
  const auto* step = info(job.name);
  StepWitness w;
  w.tasks = step ? std::max(1, step->res.ntasks) : 1;
  w.ends = state::parse_step_ends(read_run_file(state::step_ends_path(job.run_dir)).value_or(""));
  return w;
}

MemberWrapping BatchLauncher::wrapping_for(const StepInfo& i, const std::string& run_dir,
                                           std::vector<std::string> forward) const {
  MemberWrapping w;
  w.launcher = launcher_for(i.res, i.placement);
  w.res = i.res;
  w.placement = i.placement;
  w.context = RankContext{i.placement.nodes.empty() ? "" : allocation_.id(), ::geteuid() == 0};
  w.context.forward = std::move(forward);
  if (i.placement.nodes.empty()) w.context.hostfile_variable = scheduler_->job_hostfile_variable();
  w.context.mpirun_nodes = scheduler_->mpirun_nodes();
  if (const auto recipe = scheduler_->step_id_recipe())
    w.recorder = StepRecorder{run_dir, recipe->id_template, recipe->rank_variable};
  return w;
}

std::vector<std::string> BatchLauncher::command(const plan::Step& step) const {
  StepInfo i{step.res, {}, step.setup};
  if (!step.batch) {  // a step of the allocation
    const auto* known = info(step.name);
    i.placement = known ? known->placement : Placement{{"<node>"}, false};
    if (is_packed(step) && via_agent(step.res, 1)) return task_program(step, supervisor_);  // its node's agent runs it
    if (is_packed(step)) i.placement = Placement{{"<node>"}, false, true, 0};  // its nodes come when it starts
  }
  return command_for(step, i);
}

std::vector<std::string> BatchLauncher::command_on(const plan::Step& step, const Grant& grant) const {
  if (via_agent(step.res, grant.nodes.size())) return task_program(step, supervisor_);  // its node's agent starts it
  StepInfo i{step.res, placement_of(grant), step.setup};
  if (grant.nodes.size() > 1) i.res.tasks_per_node = grant.tasks_per_node();
  return command_for(step, i);
}

std::vector<std::string> BatchLauncher::command_for(const plan::Step& step, const StepInfo& i) const {
  // What ssim gives the step, and the PATH its setup lines leave, reach its ranks on every
  // node (docs/launchers.md "What a step inherits").
  std::vector<std::string> forward;
  auto add = [&](const std::string& name) {
    if (std::find(forward.begin(), forward.end(), name) == forward.end()) forward.push_back(name);
  };
  for (const auto& [k, v] : plan::launch_env(step, "", 1)) add(k);  // names only
  add("PATH");
  add("PYTHONPATH");
  if (std::getenv("LD_LIBRARY_PATH")) add("LD_LIBRARY_PATH");  // -x of an unset one makes mpirun warn
  MemberWrapping w = wrapping_for(i, step.run_dir, std::move(forward));
  // Several ranks get their wiring from the rank wrapper; a lone one has it in its
  // environment (plan::step_env).
  if (i.res.wrapped_ranks()) w.rank_wrapper = RankAddress{false, interface_};
  return member_command(step, supervisor_, w).argv;
}

std::vector<PoolNode> BatchLauncher::pool(const plan::Plan&) const { return allocation_.placement().pool; }

bool BatchLauncher::packs(const plan::Step& step) const { return is_packed(step); }

std::vector<std::string> BatchLauncher::database_command(int shard, const std::string& run_dir,
                                                         const std::vector<std::string>& inner) const {
  StepInfo i = database_;
  if (shard < static_cast<int>(allocation_.placement().database.size()))
    i.placement = allocation_.placement().database[shard];
  return through_rank_launcher("orchestrator", supervisor_, wrapping_for(i, run_dir), inner).argv;
}

std::vector<std::string> BatchLauncher::wrap_in_job(const std::string& run_dir, const std::vector<std::string>& command,
                                                    const std::string& time) const {
  // Inside the job, the supervisor writes the program's exit status beside it: exact
  // even where the scheduler forgets finished jobs (PBS without job history). With the
  // job's wall time, an end by the scheduler's signal once it ran out reads as such.
  std::vector<std::string> argv = {supervisor_, "--wrap", status_file(run_dir)};
  if (const auto var = scheduler_->node_variable(); !var.empty()) argv.insert(argv.end(), {"--node-variable", var});
  if (const long seconds = time_seconds(time); seconds > 0)
    argv.insert(argv.end(), {"--walltime", std::to_string(seconds)});
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

BatchJob BatchLauncher::job_for(const std::string& name, const std::string& run_dir,
                                const spec::BatchSettings& settings, const plan::Resources& res, const plan::Env& env,
                                const std::vector<std::string>& command) const {
  BatchJob job;
  job.name = name;
  job.settings = settings;
  job.res = res;
  const StepInfo* i = info(name);
  job.setup = i ? i->setup : setup_;
  job.setup.insert(job.setup.end(), settings.setup.begin(), settings.setup.end());
  job.run_dir = run_dir;
  job.out = run_dir + "/" + name + ".out";
  job.err = run_dir + "/" + name + ".err";
  job.env = env;
  job.command = wrap_in_job(run_dir, command, settings.time);
  return job;
}

std::string BatchLauncher::batch_script_path(const plan::Step& step) const {
  if (!step.batch) return "";
  return step.run_dir + "/" + step.name + "." + scheduler_->script_extension();
}

namespace {
// When `dir` last changed (a file made or replaced there), on the steady clock whose now
// is `now` (the wall clock's: `wall_now`); `now` when it cannot be read or is in the future.
std::chrono::steady_clock::time_point last_change(const std::string& dir, std::chrono::steady_clock::time_point now,
                                                  double wall_now) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return now;
  const double ago = wall_now - (static_cast<double>(st.st_mtim.tv_sec) + st.st_mtim.tv_nsec / 1e9);
  if (ago <= 0) return now;
  return now - std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(ago));
}

// Open MPI refuses root unless told: what every launch as root carries.
void add_root_exports(plan::Env& env) {
  if (::geteuid() != 0) return;
  env.emplace_back("OMPI_ALLOW_RUN_AS_ROOT", "1");
  env.emplace_back("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
}
}  // namespace

std::string BatchLauncher::batch_script(const plan::Step& step) const {
  if (!step.batch) return "";
  // The script a run submits (--dry-run prints it): the launch's environment, as the
  // engine builds it (plan::launch_env), with the experiment's id still to be made.
  plan::Env env = plan::launch_env(step, plan::kExperimentIdPlaceholder, 1);
  add_root_exports(env);
  return scheduler_->render_script(job_for(step.name, step.run_dir, *step.batch, step.res, env, command(step)));
}

// --- the whole experiment as one job ---------------------------------------------

int BatchLauncher::experiment_nodes(const plan::Plan& plan) const {
  if (plan.batch && plan.batch->nodes) return *plan.batch->nodes;
  return std::max(1, nodes_needed(plan, cpus_per_node(*scheduler_, *runner_, plan,
                                                      plan.batch.value_or(spec::BatchSettings{}), log_)));
}

std::string BatchLauncher::experiment_script_path(const plan::Plan& plan) const {
  return ssim_dir(plan.path) + "/batch." + scheduler_->script_extension();
}

std::string BatchLauncher::experiment_script(const plan::Plan& plan, const std::vector<std::string>& command) const {
  BatchJob job;
  job.name = "ssim-" + plan.name;
  if (plan.batch) job.settings = *plan.batch;
  job.settings.nodes = experiment_nodes(plan);  // the database's and each exclusive entity's own
  job.whole_nodes = true;
  if (const auto query = scheduler_->cpus_per_node_command(job.settings))
    job.node_cpus = scheduler_->parse_cpus_per_node(runner_->run(*query, 20s));
  job.setup = plan.setup;
  if (plan.batch) job.setup.insert(job.setup.end(), plan.batch->setup.begin(), plan.batch->setup.end());
  const std::string state_dir = ssim_dir(plan.path);
  job.run_dir = std::filesystem::current_path().string();  // experiment.path resolves from here, inside too
  job.out = state_dir + "/batch.out";
  job.err = state_dir + "/batch.err";
  job.command = wrap_in_job(state_dir, command, job.settings.time);
  return scheduler_->render_script(job);
}

std::string BatchLauncher::submit_script(const std::string& path, const std::string& script, std::string& error) {
  write_file_atomically(path, script, 0700);  // 0700: it may export SSDB_PASSWORD
  const SubmitCommand c = scheduler_->submit_command(path);
  const auto r = runner_->run(c.argv, 60s, c.stdin_path);  // never retried: it could submit twice
  const std::string id = scheduler_->job_id_from_submit_output(r);
  if (id.empty()) {
    error = c.argv[0] + kSubmitRefused +
            (r.err.empty() ? (r.timed_out ? "timed out" : "exit " + std::to_string(r.exit_code)) : r.err);
    while (!error.empty() && error.back() == '\n') error.pop_back();
  }
  return id;
}

std::string BatchLauncher::submit_experiment(const plan::Plan& plan, const std::vector<std::string>& command) {
  std::string error;
  const std::string id = submit_script(experiment_script_path(plan), experiment_script(plan, command), error);
  if (id.empty()) throw EnvironmentError(error);
  return id;
}

// --- start, poll, cancel ---------------------------------------------------------

JobRef BatchLauncher::submit(const LaunchRequest& r) {
  ::unlink(status_file(r.run_dir).c_str());  // a rerun must not read the last attempt's files
  ::unlink(cancel_marker(r.run_dir).c_str());
  const StepInfo* i = info(r.name);
  const plan::Resources res = i ? i->res : database_.res;
  std::string error;
  try {
    const std::string path = r.run_dir + "/" + r.name + "." + scheduler_->script_extension();
    const std::string id =
        submit_script(path, scheduler_->render_script(job_for(r.name, r.run_dir, *r.batch, res, r.env, r.argv)), error);
    if (!id.empty()) return JobRef{state::JobId::batch_job(id), r.name, r.run_dir};
  } catch (const std::exception& e) {
    error = e.what();
  }
  state::StatusFile refused;
  refused.exited = true, refused.exit_code = 127, refused.error = error;
  write_file_atomically(status_file(r.run_dir), state::encode_status_file(refused));
  return JobRef{state::JobId::refused(), r.name, r.run_dir};
}

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
      refs[k] = submit(r);
      continue;
    }
    if (const StepInfo* i = info(r.name); i && via_agent(i->res, r.nodes.size())) {
      if (const auto var = scheduler_->node_variable(); !var.empty()) r.env.emplace_back("SSIM_NODE_VARIABLE", var);
      agent.push_back(std::move(r));
      agent_index.push_back(k);
      continue;
    }
    // The launch command's own environment (Slurm's view of the step for mpirun).
    const StepInfo* i = info(r.name);
    StepInfo step = i ? *i : database_;
    if (!i) {
      // A database shard: its placement by the order of shard run directories.
      for (size_t s = 0; s < allocation_.placement().database.size(); ++s)
        if (r.name == "orchestrator" || r.name == "orchestrator_" + std::to_string(s))
          step.placement = allocation_.placement().database[s];
    }
    const auto extra = through_rank_launcher(r.name, supervisor_, wrapping_for(step, r.run_dir), {}).env;
    r.env.insert(r.env.end(), extra.begin(), extra.end());
    // Its tasks (a colocated database among them) name their node as the scheduler does.
    if (const auto var = scheduler_->node_variable(); !var.empty()) r.env.emplace_back("SSIM_NODE_VARIABLE", var);
    local.push_back(std::move(r));
    local_index.push_back(k);
  }
  const auto started = local_.start(local);
  for (size_t k = 0; k < started.size(); ++k) refs[local_index[k]] = started[k];
  if (!agent.empty()) {
    const auto handed = start_via_agents(std::move(agent));
    for (size_t k = 0; k < handed.size(); ++k) refs[agent_index[k]] = handed[k];
  }
  return refs;
}

std::vector<JobStatus> BatchLauncher::poll(std::span<const JobRef> jobs) {
  // The supervisors' view first: a step that ends while the query runs must still be
  // found with its id, and the id file is written before its launch command can end.
  std::vector<JobRef> steps;
  for (const auto& j : jobs)
    if (!j.id.is(Kind::Job) && !j.id.is(Kind::Agent)) steps.push_back(j);
  const auto local = local_.poll(steps);
  for (auto& l : agent_launches_) l.hub->beat();
  std::map<const AgentLaunch*, std::optional<JobStatus>> launch_ended;  // asked once per poll
  check_nodes();

  std::vector<std::string> native(jobs.size()), ids;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].id.is(Kind::Agent)) continue;  // the agent's files say it all
    native[i] = jobs[i].id.is(Kind::Job) ? jobs[i].id.job : recorded_step(jobs[i].run_dir);
    if (!native[i].empty()) ids.push_back(native[i]);
  }
  std::map<std::string, JobStatus> said = query_scheduler(ids);
  std::vector<JobStatus> out;
  std::map<std::pair<std::string, std::string>, std::string> lost;  // (agents folder, node) -> why lost
  std::vector<std::string> never;
  size_t next_local = 0;
  const auto now = clock_->steady();
  for (size_t i = 0; i < jobs.size(); ++i) {
    const auto it = native[i].empty() ? said.end() : said.find(native[i]);
    const std::optional<JobStatus> scheduler = it == said.end() ? std::nullopt : std::optional(it->second);
    JobStatus s;
    if (const state::JobId& agent = jobs[i].id; agent.is(Kind::Agent)) {
      const AgentLaunch* mine = launch_of_generation(agent.job);
      const std::string dir = mine ? mine->hub->dir() : find_agents_dir(jobs[i].run_dir, agent.job);
      // Whether a node's agent is lost: asked once per node and poll, not per job.
      auto [why, first] = lost.try_emplace({dir, agent.node});
      if (first && !dir.empty()) why->second = agent_lost(dir, agent.node);
      s = agent_job_status(dir, agent.node, jobs[i].run_dir, why->second);
      if (mine && !state::is_terminal(s.status)) {
        auto [gone, asked] = launch_ended.try_emplace(mine);
        if (asked) gone->second = agents_ended(*mine);
        if (!gone->second) {
          out.push_back(s);
          continue;
        }
        const std::string step = s.native_id;
        s = status_from_file(jobs[i].run_dir);  // it may have ended just before its agent
        s.native_id = step;
        if (!state::is_terminal(s.status)) {
          s.status = Status::Failed;
          s.reason = "the node agents' launch ended (" + describe_end(*gone->second) + "; see " + mine->hub->dir() +
                     "/ssim-agents.err)";
        }
      }
      out.push_back(s);
      continue;
    } else if (jobs[i].id.is(Kind::Job)) {
      const bool cancelled = ::access(cancel_marker(jobs[i].run_dir).c_str(), F_OK) == 0;
      const auto wrapped = read_job_status(jobs[i].run_dir);
      s = merge_job(scheduler, wrapped, cancelled, scheduler_->name(), native[i]);
      if (scheduler && scheduler->status == Status::Unknown && !cancelled &&
          !(wrapped && state::is_terminal(wrapped->status))) {
        // Not listed: it ended a moment ago and its status file is on its way, or the
        // scheduler forgets ended jobs (PBS without history). Never failed on one answer.
        // A job that never started has nothing on its way: its grace runs from the last
        // change of its folder (the submission), so that a reader asking once (ssim
        // status) sees a job deleted while queued go instead of pending for ever.
        const auto seen = unlisted_since_.emplace(native[i], now).first->second;
        const auto since = wrapped ? seen : std::min(seen, last_change(jobs[i].run_dir, now, clock_->now()));
        if (now - since < kUnlistedGrace) {
          s.status = wrapped && wrapped->status == Status::Running ? Status::Running : Status::Pending;
          s.reason = "not listed by " + scheduler_->status_command({native[i]})[0] + "; waiting for its status file";
          if (wrapped) s.start = wrapped->start;
        }
      } else {
        unlisted_since_.erase(native[i]);
      }
      if (s.status == Status::Pending && scheduler && scheduler->never_runs && !cancelled) {
        // Waiting would be for ever: the job goes, and says why.
        std::string why = scheduler->reason;
        if (why.rfind("pending: ", 0) == 0) why = why.substr(9);
        if (why.rfind("Can Never Run: ", 0) == 0) why = why.substr(15);
        s.status = Status::Failed;
        s.reason = scheduler_->name() + kNeverRuns + why;
        state::StatusFile never_ran;
        never_ran.exited = true, never_ran.error = s.reason;
        write_file_atomically(status_file(jobs[i].run_dir), state::encode_status_file(never_ran));
        never.push_back(native[i]);
      }
    } else {
      JobStatus l = local[next_local++];
      l.native_id = native[i];
      s = merge_step(l, scheduler, step_witness(jobs[i], l, scheduler), now_seconds());
    }
    s.native_id = native[i];
    out.push_back(s);
  }
  if (!never.empty()) run_with_retries(*runner_, scheduler_->cancel_command(never), 20s, log_, 2);
  return out;
}

// One query for every job and step, at a pace a production server accepts: at once
// for a job it has not answered about yet, then every second, slowing to every
// kMaxQueryInterval while nothing changes. A job's end is seen sooner anyway, through
// the status file its supervisor writes. In the background (set_queries_in_background):
// the query runs beside the engine, which uses the last answer meanwhile, so a slow or
// hung accounting daemon never holds up launching; one query at a time.
std::map<std::string, JobStatus> BatchLauncher::query_scheduler(const std::vector<std::string>& ids) {
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
    query_ = std::async(std::launch::async, [runner = runner_.get(), argv = scheduler_->status_command(ids)] {
      return runner->run(argv, 20s);
    });
    return failed ? std::map<std::string, JobStatus>{} : last_said_;
  }
  for (int attempt = 0; attempt < 2; ++attempt) {  // a switch of sources is asked again at once
    if (absorb(ids, runner_->run(scheduler_->status_command(ids), 20s))) return last_said_;
    if (!ask_again_) break;
  }
  return {};
}

// Takes the scheduler's answer to a query about `ids`; false when it was no answer (the
// command failed). A switch to another source (PBS history off, Slurm accounting off)
// is no failure: the next query goes out at once.
bool BatchLauncher::absorb(const std::vector<std::string>& ids, const CommandResult& r) {
  ask_again_ = false;
  auto parsed = scheduler_->parse_status_output(r, ids);
  if (!parsed) {
    if (scheduler_->switch_status_source(r)) {
      ask_again_ = true;
    } else if (log_) {
      log_(scheduler_->status_command(ids)[0] + " failed (" +
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
  query_interval_ =
      changed ? kMinQueryInterval : std::min<std::chrono::milliseconds>(query_interval_ * 3 / 2, kMaxQueryInterval);
  next_query_ = clock_->steady() + query_interval_;
  last_said_ = std::move(said);
  return true;
}

void BatchLauncher::cancel(std::span<const JobRef> jobs, bool force) {
  std::vector<std::string> ids;
  std::vector<JobRef> steps;
  std::map<std::pair<std::string, std::string>, state::AgentCancel> to_agents;  // (folder, node)
  for (const auto& j : jobs) {
    if (const state::JobId& agent = j.id; agent.is(Kind::Agent)) {
      if (::access(cancel_marker(j.run_dir).c_str(), F_OK) != 0) write_file_atomically(cancel_marker(j.run_dir), "");
      const AgentLaunch* mine = launch_of_generation(agent.job);
      const std::string dir = mine ? mine->hub->dir() : find_agents_dir(j.run_dir, agent.job);
      if (dir.empty()) continue;
      auto& c = to_agents[{dir, agent.node}];
      c.force = force;
      c.run_dirs.push_back(j.run_dir);
      continue;
    }
    const std::string id = j.id.is(Kind::Job) ? j.id.job : recorded_step(j.run_dir);
    if (!id.empty()) ids.push_back(id);
    // The marker first: a step that ends because of the scancel below ended after it
    // (cancelled), one that had ended before keeps its outcome. The earliest one stays.
    if (::access(cancel_marker(j.run_dir).c_str(), F_OK) != 0) write_file_atomically(cancel_marker(j.run_dir), "");
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
  for (const auto& [where, c] : to_agents) {
    try {
      send_agent_cancel(where.first, where.second, c);
    } catch (const std::exception& e) {
      if (log_) log_("cannot ask the agent on " + where.second + " to stop jobs: " + e.what());
    }
  }
}

}  // namespace ssim::launchers
