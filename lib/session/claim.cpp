#include "lib/session/claim.hpp"
#include "lib/util/experiment_dir.hpp"

#include "lib/util/processes.hpp"
#include "lib/util/proc_stat.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <thread>
#include <cstring>
#include <filesystem>

#include "lib/launch/registry.hpp"
#include "lib/engine/engine.hpp"
#include "lib/engine/ended_with_job.hpp"
#include "lib/engine/refresh.hpp"
#include "lib/state/job_id.hpp"
#include "lib/util/errors.hpp"

namespace ssim::session {

namespace fs = std::filesystem;

namespace {
// The run lock, waiting a moment for holders that only read or refresh the experiment
// (`ssim status`, `ssim stop` saving the manifest): they keep it for milliseconds. A run
// or monitor holding it means the experiment runs: refused (exit 2).
state::RunLock acquire_run_lock(const std::string& path, const std::string& role) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (true) {
    if (auto lock = state::RunLock::try_acquire(path, role)) return std::move(*lock);
    const auto holder = state::RunLock::holder(path);
    // The lock file names its holder a moment after the lock is taken: until then it
    // names the previous one, whose process is gone. That is a reader on its way in.
    const bool stale =
        holder && holder->host == host_name() && !holder->ticks.empty() && !process_alive(holder->pid, holder->ticks);
    const bool transient = holder && (holder->role == "status" || holder->role == "stop" || stale);
    if ((holder && !transient) || std::chrono::steady_clock::now() > deadline) state::refuse_if_running(path);
    if (std::chrono::steady_clock::now() > deadline) throw EnvironmentError("cannot lock " + state::lock_path(path));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // the reader is done within milliseconds
  }
}
}  // namespace

state::RunLock claim_experiment(const plan::Plan& plan, generate::Existing mode, const std::string& role) {
  const fs::path root = plan.path;
  std::error_code ec;
  if (!fs::exists(fs::path(ssim_dir(root.string())), ec)) {
    generate::check_target(plan, generate::Existing::Refuse);
    fs::create_directories(root, ec);
    if (ec) throw EnvironmentError("cannot create " + root.string() + ": " + ec.message());
    if (::mkdir((fs::path(ssim_dir(root.string()))).c_str(), 0755) != 0) {
      if (errno == EEXIST) throw UsageError("experiment " + plan.path + " is being created by another ssim run");
      throw EnvironmentError("cannot create " + (fs::path(ssim_dir(root.string()))).string() + ": " +
                             std::strerror(errno));
    }
    return acquire_run_lock(plan.path, role);
  }
  if (mode == generate::Existing::Refuse) state::refuse_if_running(plan.path);
  generate::check_target(plan, mode);  // before the lock file is created in someone else's folder
  return acquire_run_lock(plan.path, role);
}

namespace {
void undo_claim(const plan::Plan& plan) {
  std::error_code ec;
  fs::remove_all(fs::path(ssim_dir(plan.path)), ec);
  for (const auto& s : plan.steps) fs::remove_all(s.run_dir, ec);
  if (plan.database) fs::remove_all(plan.database->run_dir, ec);
  for (const auto& s : plan.steps)
    if (!s.ensemble.empty()) fs::remove(fs::path(s.run_dir).parent_path(), ec);  // only when empty
  fs::remove(plan.path, ec);                                                     // only when empty
}
}  // namespace

generate::GenerateResult generate_claimed(const plan::Plan& plan, generate::Existing mode) {
  try {
    return generate::generate(plan, mode);
  } catch (...) {
    if (mode == generate::Existing::Refuse) undo_claim(plan);
    throw;
  }
}

void refuse_if_still_alive(state::Manifest& previous, const plan::Plan& plan) {
  // Only what an earlier run started can still run: inside `ssim run --batch`'s job
  // nothing has (its own job is the "batch" row), and no scheduler query is spent. The
  // probe copies the header and those records only (a copy of a million records was the
  // largest part of a resume's peak memory).
  auto all = std::move(previous.entities);
  state::Manifest probe = previous;
  previous.entities = std::move(all);
  probe.name_index = {};
  for (const auto& e : previous.entities)
    if (e.type != state::EntityKind::Batch && !e.job_id.empty() && !state::is_terminal(e.status))
      probe.entities.push_back(e);
  if (probe.entities.empty()) return;
  auto launcher = launch::make_launcher(previous.launcher);
  engine::refresh(probe, *launcher);
  engine::end_with_their_job(probe, *launcher);  // the job they ran in ended: so did they
  for (const auto& e : probe.entities)
    if (auto* r = previous.find(e.name)) *r = e;
  const bool reuse_database = engine::reusable_database(plan, previous);
  for (const auto& e : probe.entities) {
    if (e.status != state::Status::Running && e.status != state::Status::Pending) continue;
    if (e.type == state::EntityKind::Database && reuse_database) continue;  // persist: true, the resumed run uses it
    const std::string hint = e.type == state::EntityKind::Database && plan.database && plan.database->persist
                                 ? " (a database left running by persist: true is reused only with the same shards)"
                                 : "";
    throw UsageError("cannot resume " + previous.path + ": " + e.name + " from the earlier run is still " +
                     to_string(e.status) + " (job " + state::parse_job_id(e.job_id).label(host_name()) +
                     (e.pid ? ", pid " + std::to_string(e.pid) : "") + ")" + hint +
                     "; wait for it to end, or end it with: ssim stop " + previous.path);
  }
}

}  // namespace ssim::session
