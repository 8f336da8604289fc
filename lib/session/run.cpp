// ssim run, around the engine: the checks before anything is written, the claim of the
// experiment folder, generation, the launcher and its allocation, the log, signal
// handling and --detach.
#include "lib/session/run.hpp"
#include "lib/util/experiment_dir.hpp"

#include <cstdlib>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>

#include "lib/launch/devices.hpp"
#include "lib/engine/engine.hpp"
#include "lib/engine/event_log.hpp"
#include "lib/generate/generate.hpp"
#include "lib/session/claim.hpp"
#include "lib/session/coschedule_check.hpp"
#include "lib/session/launcher_setup.hpp"
#include "lib/state/history.hpp"
#include "lib/plan/inherited_wiring.hpp"
#include "lib/state/lock.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/errors.hpp"
#include "lib/util/proc_stat.hpp"
#include "lib/util/processes.hpp"

namespace ssim::session {

namespace fs = std::filesystem;

namespace {

int blocked_signal_fd() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  sigprocmask(SIG_BLOCK, &set, nullptr);
  return signalfd(-1, &set, SFD_CLOEXEC);
}

// The --detach fork: the parent reports and returns; the child becomes the monitor.
bool detach_monitor(state::RunLock& lock, engine::Engine& engine, const state::Manifest& m, bool& parent,
                    const Notes& notes) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw EnvironmentError("cannot fork the background monitor");
  if (pid > 0) {
    parent = true;
    notes(m.experiment + " started; tracking continues in the background (pid " + std::to_string(pid) +
          ")\n  ssim status " + m.path + "\n  ssim stop " + m.path);
    return false;
  }
  ::setsid();
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);  // not inherited across fork: the monitor asks again
  int devnull = ::open("/dev/null", O_RDWR);
  for (int fd = 0; fd <= 2; ++fd) ::dup2(devnull, fd);
  lock.set_owner("monitor");
  static engine::SilentProgress silent;
  engine.set_progress(silent);
  return true;
}

// Inside the job of `ssim run --batch`: the submitting ssim may still be recording the
// job (it holds the lock as "submit" until then); wait for it, bounded.
void wait_for_submitter(const std::string& path) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    const auto holder = state::RunLock::holder(path);
    if (!holder || holder->role != "submit") return;
    if (holder->host == host_name() && !holder->ticks.empty() && !process_alive(holder->pid, holder->ticks))
      return;  // the file still names the submitter, which is gone: a reader holds it a moment
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // waiting for the lock to drop
  }
}

// `--only` names entities or ensembles of the plan (exit 2 otherwise, before anything is written).
void check_only(const plan::Plan& plan, const std::optional<std::vector<std::string>>& only) {
  if (!only) return;
  for (const auto& n : *only) {
    bool known = false;
    for (const auto& s : plan.steps) known = known || s.name == n || s.ensemble == n;
    if (!known) throw UsageError("--only: no entity or ensemble " + n + " in " + plan.file);
  }
}

void hold_all_but(state::Manifest& m, const std::optional<std::vector<std::string>>& chosen) {
  if (!chosen) return;
  const auto& only = *chosen;
  for (auto& e : m.entities) {
    if (e.type == state::EntityKind::Database || e.type == state::EntityKind::Batch) continue;
    if (e.status != state::Status::New) continue;
    const bool asked = std::find(only.begin(), only.end(), e.name) != only.end() ||
                       (!e.ensemble.empty() && std::find(only.begin(), only.end(), e.ensemble) != only.end());
    if (asked) continue;
    e.held = true;
    e.reason = engine::kHeldReason;
  }
}

// For `ssim start` of an entity added to the file while the run is open: the file read
// again, as the run read it, its new run directories made. The database and the
// experiment's name and folder stay as they started.
plan::Plan reload(const plan::Plan& running) {
  Loaded fresh = load(running.file, running.launcher);
  const plan::Plan& p = fresh.plan;
  if (p.name != running.name || p.path != running.path)
    throw UsageError(running.file + ": the experiment's name or path changed while it runs (" + running.name + " at " +
                     running.path + ")");
  if (bool(p.database) != bool(running.database))
    throw UsageError(running.file +
                     ": a database cannot be added to or removed from a running experiment; stop it "
                     "and run again");
  generate::generate(p, generate::Existing::Resume);
  return std::move(fresh.plan);
}

}  // namespace

RunResult run(const Loaded& l, const RunSettings& req, const RunOutput& out) {
  const Notes notes = out.notes ? out.notes : [](const std::string&) {};
  const plan::Plan& plan = l.plan;
  launch::check_device_variables();
  check_only(plan, req.only);
  {
    const auto checked = prepare_launcher(plan, false);  // fits? (exit 2 before anything is written)
    check_batch_scripts(plan, *checked.launcher);
    check_gpus(plan, *checked.launcher);   // exit 2: more GPUs than there are
    check_gangs(plan, *checked.launcher);  // exit 2: a gang that can never start together
    // The same experiment already running is why its port is taken: said first (exit 2).
    if (!req.in_batch && !req.resume)
      if (const auto h = state::RunLock::holder(plan.path); h && h->role != "status" && h->role != "stop")
        state::refuse_if_running(plan.path);
    check_environment(plan, *checked.launcher);  // exit 3, still before anything is written
    if (!req.resume) check_ports(plan);
    for (const auto& w : coscheduling_warnings(plan, *checked.launcher)) notes("warning: " + w);
    // Once the file is known good, once (not per rank): what of the shell's rank wiring
    // ssim replaces.
    const std::string replaced =
        plan::replaced_wiring_notice(plan::replaced_wiring(plan, [](const char* n) { return std::getenv(n); }));
    if (!replaced.empty()) notes(replaced);
  }
  if (plan::runs_here(plan))
    for (const auto& s : plan.steps)
      if (s.program->batch) {
        notes("warning: " + s.name + ": batch: needs a scheduler; the local launcher runs it directly");
        break;
      }
  std::error_code ec;
  if (req.in_batch) wait_for_submitter(plan.path);
  const auto mode = req.overwrite                ? generate::Existing::Overwrite
                    : req.resume || req.in_batch ? generate::Existing::Resume
                                                 : generate::Existing::Refuse;
  if (mode == generate::Existing::Resume && !fs::exists(state::manifest_path(plan.path), ec))
    throw UsageError("nothing to resume: no experiment at " + plan.path);
  auto lock = claim_experiment(plan, mode, "run");
  std::optional<state::Manifest> previous;
  if (mode == generate::Existing::Resume) {
    previous = state::load_manifest(plan.path);
    refuse_if_still_alive(*previous, plan);
  }
  const auto gen_start = std::chrono::steady_clock::now();
  const auto generated = generate_claimed(plan, mode);
  const double gen_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - gen_start).count();
  for (const auto& w : generated.warnings) notes("warning: " + w);

  RunLauncher run_launcher = prepare_launcher(plan, true);  // may request an allocation
  auto& launcher = run_launcher.launcher;
  // The outer job's row (in a batch job), kept first.
  std::vector<state::EntityRecord> outer;
  if (req.in_batch)
    for (const auto& e : previous->entities)
      if (e.type == state::EntityKind::Batch) outer.push_back(e);
  const double created = previous ? previous->created : 0;
  state::Manifest m = previous && req.resume ? engine::resume_manifest(plan, std::move(*previous))
                      : previous             ? engine::new_manifest(plan, previous->id)
                                             : engine::new_manifest(plan, state::new_experiment_id());
  previous.reset();  // all of it is in `m` now: a million records held twice for the run's length otherwise
  m.command = own_command_line();  // the report and ssim status say how it was run
  if (req.in_batch) {
    m.created = created;
    m.entities.insert(m.entities.begin(), outer.rbegin(), outer.rend());
  }
  hold_all_but(m, req.only);
  m.allocation_job = run_launcher.allocation_job;
  m.allocation_owned = run_launcher.owned;
  if (m.created == 0) m.created = now_seconds();
  m.finished = 0;
  state::record_run(fs::current_path().string(), plan.file, plan.path);

  auto log = spdlog::basic_logger_mt("ssim-" + m.id + std::to_string(::getpid()), ssim_dir(plan.path) + "/ssim.log");
  log->set_pattern("%Y-%m-%d %H:%M:%S.%e [%l] %v");
  // A log that cannot be written (a full disk) is said once, plainly; the run goes on.
  log->set_error_handler([said = false](const std::string& what) mutable {
    if (said) return;
    said = true;
    std::fprintf(stderr, "ssim: warning: cannot write ssim.log (%s); the run goes on\n", what.c_str());
  });
  log->flush_on(spdlog::level::info);
  log->info("generated {} run directories in {:.3f}s", plan.steps.size(), gen_seconds);

  // A child subreaper: when a supervisor is killed, its programs are re-parented here,
  // so their exit status can still be taken and nothing they detach escapes to init.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  const int sfd = blocked_signal_fd();
  engine::Engine engine(plan, m, *launcher, *out.progress, log, sfd);
  bool detached_parent = false;
  engine::EngineHooks hooks;
  hooks.open = req.open;
  hooks.reload = [&plan] { return reload(plan); };
  if (req.detach) hooks.after_first_start = [&] { return detach_monitor(lock, engine, m, detached_parent, notes); };
  RunResult result;
  const auto run_start = std::chrono::steady_clock::now();
  try {
    result.code = engine.run(hooks);
  } catch (...) {
    if (!detached_parent) release(run_launcher);
    throw;
  }
  if (detached_parent) {
    result.detached = true;
    result.manifest = m;
    return result;
  }
  release(run_launcher);
  engine::Event finished = engine::text_event(engine::EventKind::Finished, "");
  finished.counts = state::entity_counts(m);
  finished.exit_code = result.code;
  finished.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
  engine::append_event(m.path, finished);
  out.progress->event(finished);  // "6 completed, 1 failed in 30.9 s"
  result.manifest = std::move(m);
  return result;
}

}  // namespace ssim::session
