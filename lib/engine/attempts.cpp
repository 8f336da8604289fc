#include "lib/engine/attempts.hpp"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "lib/engine/database_argv.hpp"
#include "lib/orchestrator/database.hpp"
#include "lib/plan/resources.hpp"
#include "lib/state/launch_log.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/errors.hpp"
#include "lib/util/node_address.hpp"
#include "lib/util/proc_stat.hpp"
#include "lib/util/split.hpp"

namespace ssim::engine {

using state::Status;

namespace {
// How the attempt before this one ended, for its start's journal line (empty for a first).
std::string earlier_attempt(const state::EntityRecord& r) {
  if (r.attempt <= 1 || r.extra().earlier_attempts.empty()) return {};
  const auto& last = r.extra().earlier_attempts.back();
  if (!last.is_object() || last.value("attempt", 0) != r.attempt - 1) return {};
  return last.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A rerun (retries:, --resume) does not overwrite what the earlier attempt printed:
// NAME.out and NAME.err become NAME.out.N and NAME.err.N (N: that attempt).
void keep_earlier_output(const state::EntityRecord& r) {
  for (const char* stream : {".out", ".err"}) {
    const std::string from = r.run_dir + "/" + r.name + stream;
    std::error_code ec;
    if (std::filesystem::exists(from, ec)) std::filesystem::rename(from, from + "." + std::to_string(r.attempt), ec);
  }
}

}  // namespace

std::string Attempts::where_it_runs(const state::EntityRecord& r) const {
  static const std::string host = host_name();  // once, not per start
  if (plan::runs_here(plan_)) return host;
  std::string nodes;
  if (const launch::Grant* g = schedule_.pool().held_by(r.name)) nodes = join(g->nodes, ",");
  if (!nodes.empty()) return nodes;
  const launch::JobAllocation* allocation = launcher_.allocation();
  return allocation ? allocation->placed_nodes(r.name) : "";
}

// What to launch for entity `r`: a database shard's command, or a step's (with its
// room on the pool, its devices, the database address and the after_any outcomes).
launch::LaunchRequest Attempts::request_for(const RunContext& run, const state::EntityRecord& r) const {
  launch::LaunchRequest req{r.name, r.run_dir, {}, {}, nullptr};
  req.earlier_attempts = r.attempt > 0;  // resumed and restarted entities keep their count
  req.launch_log = state::launch_log_path(plan_.path);
  if (is_database(r)) {
    int index = 0;
    for (const auto& shard : orchestrator::shards_of(*plan_.database)) {
      if (shard.name == r.name) req.argv = database_argv(plan_, launcher_, index, shard);
      ++index;
    }
    req.env = {{"SSIM_EXPERIMENT", plan_.name}, {"SSIM_ENTITY", r.name}, {"SSIM_RUN_DIR", r.run_dir}};
    if (plan_.database->container)
      for (auto& kv : plan::container_env(*plan_.database->container)) req.env.push_back(std::move(kv));
    if (plan_.database->batch) req.batch = std::make_shared<const spec::BatchSettings>(*plan_.database->batch);
  } else {
    const plan::Step& step = *run.steps.find(r.name);
    const launch::Grant* grant = schedule_.pool().held_by(r.name);
    req.argv = launch::step_argv(launcher_, step, grant);
    req.env = plan::launch_env(step, run.m.id, r.attempt + 1);
    req.batch = step.program->batch;
    req.time_limit = plan::time_seconds(step.program->res.time);
    if (grant) req.nodes = grant->nodes;
    if (grant && !grant->all_gpus().empty()) {
      // Its own devices, for CUDA and ROCm alike (under mpirun each rank narrows them).
      const std::string list = join(grant->all_gpus(), ",");
      for (const char* var : {"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"})
        req.env.emplace_back(var, list);
    }
    for (auto& [k, v] : req.env) {
      if (v == plan::kSsdbPlaceholder) v = ssdb_;
      if (v == plan::kPasswordPlaceholder) v = password_;
      if (v == plan::kFreePortPlaceholder) v = std::to_string(free_port_on("127.0.0.1"));
    }
    if (!r.extra().after_any.empty()) tell_outcomes(run, r, req.env);
    return req;
  }
  req.env.emplace_back("SSIM_EXPERIMENT_ID", run.m.id);  // a database shard's
  return req;
}

// A new attempt of `r` begins: what the last one left is cleared.
void Attempts::begin(const RunContext& run, state::EntityRecord& r) const {
  if (r.attempt > 0) keep_earlier_output(r);
  r.attempt += 1;
  r.submitted = run.clock.now();
  r.start = r.submitted;
  r.nodes = where_it_runs(r);
  r.end = 0;
  r.no_metrics = false;
  r.pid = 0;
  r.exit_code.reset();
  r.signal.reset();
  r.reason.clear();
  r.retry_at = 0;
}

void Attempts::start(RunContext& run, LiveIndex& live, ManifestSaver& saver,
                     const std::vector<state::EntityRecord*>& records) {
  std::vector<launch::LaunchRequest> requests;
  for (auto* r : records) {
    requests.push_back(request_for(run, *r));
    begin(run, *r);
    live.started_now(static_cast<size_t>(r - run.m.entities.data()));  // polled from now on
  }
  // Journalled before the launch as well: a job that exists is never unknown, even if
  // ssim is killed between starting it and learning its id ("?": its run directory's
  // status file then says what became of it).
  std::vector<state::StartRecord> intents;
  for (auto* r : records)
    intents.push_back({r->name, state::JobId::unknown().str(), r->attempt, r->start, earlier_attempt(*r)});
  try {
    journal_.append(intents);
  } catch (const std::exception& e) {
    run.log.warn("{}", e.what());
  }
  try {
    const auto refs = launcher_.start(requests);
    std::vector<state::StartRecord> starts;
    for (size_t i = 0; i < records.size(); ++i) {
      records[i]->job_id = refs[i].id.str();
      records[i]->status = Status::Pending;
      starts.push_back(
          {records[i]->name, records[i]->job_id, records[i]->attempt, records[i]->start, intents[i].earlier});
      run.log.info("{} started as job {}", records[i]->name, records[i]->job_id);
    }
    try {
      journal_.append(starts);
    } catch (const std::exception& e) {
      run.log.warn("{}; the manifest is saved instead", e.what());
      saver.save(run);
    }
  } catch (const EnvironmentError& e) {
    environment_failed_ = true;  // the run's exit code says so: 3, not a workflow failure
    for (auto* r : records) {
      if (!r->job_id.empty() && r->status == Status::Pending) continue;
      r->status = Status::Failed;
      r->reason = e.what();
      r->end = run.clock.now();
      run.emit(entity_event(r->name, to_string(r->type), r->status, std::nullopt, "failed to start: " + r->reason));
      run.log.error("{} failed to start: {}", r->name, r->reason);
    }
  }
}

// after_any: the entity learns which of what it waited for succeeded, from
// <run_dir>/after.json (every one: name, status, exit_code, reason) and, when they are
// short enough for an environment, SSIM_AFTER_OK and SSIM_AFTER_FAILED (comma lists;
// failed includes cancelled).
void Attempts::tell_outcomes(const RunContext& run, const state::EntityRecord& r, plan::Env& env) const {
  nlohmann::json doc = nlohmann::json::object();
  std::string ok, failed;
  for (const auto& name : r.extra().after_any) {
    const auto* dep = run.m.find(name);
    if (!dep) continue;
    nlohmann::json j = nlohmann::json::object();
    j["status"] = to_string(dep->status);
    j["exit_code"] = dep->exit_code ? nlohmann::json(*dep->exit_code) : nlohmann::json();
    j["reason"] = dep->reason;
    doc[name] = std::move(j);
    std::string& list = dep->status == Status::Completed && dep->exit_code == 0 ? ok : failed;
    list += (list.empty() ? "" : ",") + name;
  }
  try {
    write_file_atomically(r.run_dir + "/after.json", doc.dump(1) + "\n");
  } catch (const std::exception& e) {
    run.log.warn("{}: cannot write after.json: {}", r.name, e.what());
  }
  constexpr size_t kMaxVariable = 32 * 1024;  // far below the kernel's 128 KiB per string
  env.emplace_back("SSIM_AFTER_OK", ok.size() <= kMaxVariable ? ok : "(see after.json)");
  env.emplace_back("SSIM_AFTER_FAILED", failed.size() <= kMaxVariable ? failed : "(see after.json)");
}

// `retries: N`: a failed entity (not a cancelled one) goes back to new after a short
// backoff, up to N times; how each attempt ended stays in the manifest.
bool Attempts::retry_failed(RunContext& run, LiveIndex& live,
                            const std::function<bool(const state::EntityRecord&)>& was_stopped) {
  bool changed = false;
  for (size_t i : live.started()) {  // a failure with retries left is never ended for good
    auto& r = run.m.entities[i];
    if (r.status != Status::Failed || is_database(r) || is_outer_batch(r)) continue;
    const plan::Step* step = run.step(r.name);
    if (!step || r.attempt > step->program->retries) continue;
    if (was_stopped(r)) continue;
    r.extra_mut().earlier_attempts.push_back(state::attempt_record(r));
    const double backoff = std::min(0.5 * r.attempt, 5.0);
    r.status = Status::New;
    r.job_id.clear();  // nothing to poll until it starts again
    r.pid = 0;
    r.retry_at = run.clock.now() + backoff;
    live.new_again(i);  // a candidate again
    r.reason = "retrying in " + std::to_string(backoff).substr(0, 3) + " s (attempt " + std::to_string(r.attempt) +
               " of " + std::to_string(step->program->retries + 1) + " failed)";
    run.log.info("{}: {}", r.name, r.reason);
    run.emit(entity_event(r.name, to_string(r.type), r.status, std::nullopt, r.reason));
    changed = true;
  }
  return changed;
}

}  // namespace ssim::engine
