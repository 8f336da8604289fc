// Starting entities: what each launch request holds (its command, environment and the
// outcomes of what it waits for), and one launcher call for every entity started in a pass.
#include "lib/engine/engine.hpp"
#include "lib/state/launch_log.hpp"
#include "lib/util/split.hpp"

#include <climits>

#include <chrono>
#include <nlohmann/json.hpp>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

#include "lib/engine/event_log.hpp"
#include "lib/engine/failure_pointer.hpp"
#include "lib/engine/refresh.hpp"
#include "lib/state/start_journal.hpp"
#include "lib/state/control_request.hpp"
#include "lib/plan/resources.hpp"
#include "lib/engine/stop.hpp"
#include "lib/orchestrator/database.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/layout.hpp"
#include "lib/util/node_address.hpp"
#include "lib/engine/database_argv.hpp"
#include "lib/util/proc_stat.hpp"
#include "lib/util/self_exe.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/errors.hpp"

namespace ssim::engine {

using state::Status;

// What to launch for entity `r`: a database shard's command, or a step's (with its
// room on the pool, its devices, the database address and the after_any outcomes).
launch::LaunchRequest Engine::request_for(const state::EntityRecord& r) {
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
    const plan::Step& step = *steps_.at(r.name);
    const launch::Grant* grant = schedule_.pool().held_by(r.name);
    req.argv = launch::step_argv(launcher_, step, grant);
    req.env = plan::launch_env(step, m_.id, r.attempt + 1);
    req.batch = step.batch;
    req.time_limit = plan::time_seconds(step.res.time);
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
    if (!r.after_any.empty()) tell_outcomes(r, req.env);
    return req;
  }
  req.env.emplace_back("SSIM_EXPERIMENT_ID", m_.id);  // a database shard's
  return req;
}

// A new attempt of `r` begins: what the last one left is cleared.
void Engine::begin_attempt(state::EntityRecord& r) {
  if (r.attempt > 0) keep_earlier_output(r);
  r.attempt += 1;
  r.submitted = clock_->now();
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

void Engine::start_batch(const std::vector<state::EntityRecord*>& records) {
  std::vector<launch::LaunchRequest> requests;
  for (auto* r : records) {
    requests.push_back(request_for(*r));
    begin_attempt(*r);
    started_.push_back(static_cast<size_t>(r - m_.entities.data()));  // polled from now on
    ++left_waiting_;
  }
  // Journalled before the launch as well: a job that exists is never unknown, even if
  // ssim is killed between starting it and learning its id ("?": its run directory's
  // status file then says what became of it).
  std::vector<state::StartRecord> intents;
  for (auto* r : records) intents.push_back({r->name, state::JobId::unknown().str(), r->attempt, r->start});
  try {
    journal_.append(intents);
  } catch (const std::exception& e) {
    log_->warn("{}", e.what());
  }
  try {
    const auto refs = launcher_.start(requests);
    std::vector<state::StartRecord> starts;
    for (size_t i = 0; i < records.size(); ++i) {
      records[i]->job_id = refs[i].id.str();
      records[i]->status = Status::Pending;
      starts.push_back({records[i]->name, records[i]->job_id, records[i]->attempt, records[i]->start});
      log_->info("{} started as job {}", records[i]->name, records[i]->job_id);
    }
    try {
      journal_.append(starts);
    } catch (const std::exception& e) {
      log_->warn("{}; the manifest is saved instead", e.what());
      save();
    }
  } catch (const EnvironmentError& e) {
    environment_failed_ = true;  // the run's exit code says so: 3, not a workflow failure
    for (auto* r : records) {
      if (!r->job_id.empty() && r->status == Status::Pending) continue;
      r->status = Status::Failed;
      r->reason = e.what();
      r->end = clock_->now();
      emit(entity_event(r->name, to_string(r->type), r->status, std::nullopt, "failed to start: " + r->reason));
      log_->error("{} failed to start: {}", r->name, r->reason);
    }
  }
}

// after_any: the entity learns which of what it waited for succeeded, from
// <run_dir>/after.json (every one: name, status, exit_code, reason) and, when they are
// short enough for an environment, SSIM_AFTER_OK and SSIM_AFTER_FAILED (comma lists;
// failed includes cancelled).
void Engine::tell_outcomes(const state::EntityRecord& r, plan::Env& env) {
  nlohmann::json doc = nlohmann::json::object();
  std::string ok, failed;
  for (const auto& name : r.after_any) {
    const auto* dep = m_.find(name);
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
    log_->warn("{}: cannot write after.json: {}", r.name, e.what());
  }
  constexpr size_t kMaxVariable = 32 * 1024;  // far below the kernel's 128 KiB per string
  env.emplace_back("SSIM_AFTER_OK", ok.size() <= kMaxVariable ? ok : "(see after.json)");
  env.emplace_back("SSIM_AFTER_FAILED", failed.size() <= kMaxVariable ? failed : "(see after.json)");
}

}  // namespace ssim::engine
